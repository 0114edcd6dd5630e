import type { QueryValue, TrackerHttp } from '../http/tracker-http.js';
import { carriesAny, latestTime, MAX_POLL_PAGES, pageOnUnfiltered, sinceParam, triggerLabels } from '../poll-labels.js';
import { TrackerError, type PollQuery, type TriggerSet } from '../tracker-client.js';

/**
 * The poller's reads on GitLab (see poll-labels.ts for the strategy).
 *
 * `GET /projects/:id/issues` lists issues only, ANDs `labels=` (no `or[labels]` in REST), and
 * `updated_after=` keeps those updated on or after the time; pages by `page` with `X-Next-Page`
 * (empty on the last) and `X-Total-Pages` (omitted past 10,000 issues). Requests per poll:
 * - cursor set: 1 (`state=opened&updated_after=…`, unfiltered, kept client-side) while the
 *   changes fit one page of 100; more pages are followed when `X-Total-Pages` says they cost no
 *   more than one request per trigger label, else the rest is read per label;
 * - full sweep (no cursor): one paged request per trigger label, nothing else read.
 */

export interface GitLabPolledIssue {
  iid: number;
  state: string;
  labels: string[];
  updated_at: string;
}

interface GitLabLabelEvent {
  action: string;
  /** null when the label was deleted since. */
  label: { name: string } | null;
  created_at: string;
}

const PER_PAGE = 100;
/** Newest change first, for the reason given in github-poll.ts: a change while paging never pushes another issue past a page. */
const ORDER = { order_by: 'updated_at', sort: 'desc' } as const;

/** Open issues carrying a trigger label, updated since the cursor; the last read of each wins. */
export async function pollGitLabIssues<T extends GitLabPolledIssue>(http: TrackerHttp, issuesPath: string, query: PollQuery): Promise<T[]> {
  const triggers = triggerLabels(query);
  if (triggers.length === 0) return [];
  const read = new Map<number, T>();
  const keep = (issues: T[]): void => issues.forEach((issue) => read.set(issue.iid, issue));
  const updatedAfter = query.updatedSince ? sinceParam(query.updatedSince) : undefined;

  let perLabel = true;
  if (updatedAfter !== undefined) {
    const base = { state: 'opened', updated_after: updatedAfter, ...ORDER };
    const first = await page<T>(http, issuesPath, base, '1');
    keep(first.items);
    if (first.next === null) perLabel = false;
    else if (pageOnUnfiltered(first.totalPages === null ? null : first.totalPages - 1, triggers.length)) {
      keep(await pagesFrom<T>(http, issuesPath, base, first.next));
      perLabel = false;
    }
  }
  if (perLabel) {
    for (const label of triggers) keep(await pagesFrom<T>(http, issuesPath, { state: 'opened', labels: label, updated_after: updatedAfter, ...ORDER }, '1'));
  }
  return [...read.values()].filter((i) => i.state === 'opened' && carriesAny(i.labels, triggers)).sort((a, b) => a.iid - b.iid);
}

/** The latest `add` of a trigger label in the issue's resource label events, or null. */
export async function gitLabTriggeredAt(http: TrackerHttp, issuePath: string, trigger: TriggerSet): Promise<Date | null> {
  const names = triggerLabels(trigger);
  if (names.length === 0) return null;
  const events = await pagesFrom<GitLabLabelEvent>(http, `${issuePath}/resource_label_events`, {}, '1');
  const added = events.filter((e) => e.action === 'add' && typeof e.label?.name === 'string' && carriesAny([e.label.name], names));
  return latestTime(added.map((e) => e.created_at));
}

interface Page<T> {
  items: T[];
  next: string | null;
  totalPages: number | null;
}

async function page<T>(http: TrackerHttp, path: string, query: Record<string, QueryValue>, pageNumber: string): Promise<Page<T>> {
  const res = await http.request<T[]>({ method: 'GET', path, query: { ...query, per_page: PER_PAGE, page: pageNumber } });
  if (!Array.isArray(res.body)) throw new TrackerError(`GET ${path}: GitLab answered no list`, http.platform, res.status, false);
  const total = Number(res.headers.get('x-total-pages') || NaN);
  return { items: res.body, next: res.headers.get('x-next-page') || null, totalPages: Number.isInteger(total) ? total : null };
}

/** Every page from `pageNumber` to the end. */
async function pagesFrom<T>(http: TrackerHttp, path: string, query: Record<string, QueryValue>, pageNumber: string): Promise<T[]> {
  const items: T[] = [];
  let next: string | null = pageNumber;
  for (let count = 0; next !== null; count++) {
    if (count >= MAX_POLL_PAGES) throw new TrackerError(`GitLab kept paging past ${MAX_POLL_PAGES} pages`, http.platform, null, false);
    const res: Page<T> = await page<T>(http, path, query, next);
    items.push(...res.items);
    next = res.next;
  }
  return items;
}
