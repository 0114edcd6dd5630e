import { nextLink, type QueryValue, type TrackerHttp } from '../http/tracker-http.js';
import { carriesAny, latestTime, MAX_POLL_PAGES, pageOnUnfiltered, sinceParam, triggerLabels } from '../poll-labels.js';
import { TrackerError, type PollQuery, type TriggerSet } from '../tracker-client.js';
import { API_HEADERS } from './github-api.js';

/**
 * The poller's reads on GitHub (see poll-labels.ts for the strategy).
 *
 * `GET /repos/{o}/{r}/issues` lists pull requests too (they carry `pull_request`), ANDs
 * `labels=`, and `since=` keeps those updated at or after the time. Requests per poll:
 * - cursor set: 1 (`state=open&since=…`, unfiltered, kept client-side) while the changes fit one
 *   page of 100; more pages are followed when `rel="last"` says they cost no more than one
 *   request per trigger label, else the rest is read per label with `since`;
 * - full sweep (no cursor): one paged request per trigger label, nothing else read.
 */

export interface GitHubPolledIssue {
  number: number;
  state: string;
  labels: ({ name: string } | string)[];
  pull_request?: unknown;
  updated_at: string;
}

interface GitHubIssueEvent {
  event: string;
  label?: { name: string } | null;
  created_at: string;
}

const PER_PAGE = 100;
/**
 * Newest change first: an issue changed while we page moves to the front, so the others only
 * shift back (read twice, de-duplicated), never past a page boundary; the changed one is newer
 * than this cycle, and the next cursor reads it.
 */
const ORDER = { sort: 'updated', direction: 'desc' } as const;

/** Open issues (no pull requests) carrying a trigger label, updated since the cursor; the last read of each wins. */
export async function pollGitHubIssues<T extends GitHubPolledIssue>(http: TrackerHttp, issuesPath: string, query: PollQuery): Promise<T[]> {
  const triggers = triggerLabels(query);
  if (triggers.length === 0) return [];
  const read = new Map<number, T>();
  const keep = (issues: T[]): void => issues.forEach((issue) => read.set(issue.number, issue));
  const since = query.updatedSince ? sinceParam(query.updatedSince) : undefined;

  let perLabel = true;
  if (since !== undefined) {
    const first = await page<T>(http, issuesPath, { state: 'open', since, ...ORDER, per_page: PER_PAGE });
    keep(first.items);
    if (first.next === null) perLabel = false;
    else if (pageOnUnfiltered(remainingPages(first.headers), triggers.length)) {
      keep(await pagesFrom<T>(http, first.next));
      perLabel = false;
    }
  }
  if (perLabel) {
    for (const label of triggers) {
      const first = await page<T>(http, issuesPath, { state: 'open', labels: label, since, ...ORDER, per_page: PER_PAGE });
      keep(first.items);
      if (first.next !== null) keep(await pagesFrom<T>(http, first.next));
    }
  }
  return [...read.values()]
    .filter((i) => i.pull_request === undefined && i.state === 'open' && carriesAny(labelNames(i), triggers))
    .sort((a, b) => a.number - b.number);
}

/** The latest `labeled` event of a trigger label in the issue's events, or null. */
export async function gitHubTriggeredAt(http: TrackerHttp, issuePath: string, trigger: TriggerSet): Promise<Date | null> {
  const names = triggerLabels(trigger);
  if (names.length === 0) return null;
  const first = await page<GitHubIssueEvent>(http, `${issuePath}/events`, { per_page: PER_PAGE });
  const events = first.next === null ? first.items : [...first.items, ...(await pagesFrom<GitHubIssueEvent>(http, first.next))];
  const labeled = events.filter((e) => e.event === 'labeled' && typeof e.label?.name === 'string' && carriesAny([e.label.name], names));
  return latestTime(labeled.map((e) => e.created_at));
}

export function labelNames(issue: Pick<GitHubPolledIssue, 'labels'>): string[] {
  return issue.labels.map((l) => (typeof l === 'string' ? l : l.name));
}

interface Page<T> {
  items: T[];
  next: string | null;
  headers: Headers;
}

async function page<T>(http: TrackerHttp, path: string, query?: Record<string, QueryValue>): Promise<Page<T>> {
  const res = await http.request<T[]>({ method: 'GET', path, query, headers: API_HEADERS });
  if (!Array.isArray(res.body)) throw new TrackerError(`GET ${path}: GitHub answered no list`, http.platform, res.status, false);
  return { items: res.body, next: nextLink(res.headers), headers: res.headers };
}

/** Every page from a `Link: rel="next"` URL (which carries the query) to the end. */
async function pagesFrom<T>(http: TrackerHttp, url: string): Promise<T[]> {
  const items: T[] = [];
  let next: string | null = url;
  for (let count = 1; next !== null; count++) {
    if (count >= MAX_POLL_PAGES) throw new TrackerError(`GitHub kept paging past ${MAX_POLL_PAGES} pages`, http.platform, null, false);
    const res: Page<T> = await page<T>(http, next);
    items.push(...res.items);
    next = res.next;
  }
  return items;
}

/** Pages after the first, from `Link: <…page=N…>; rel="last"`; null when the header does not say. */
function remainingPages(headers: Headers): number | null {
  const last = /<([^>]+)>\s*;\s*rel="?last"?/.exec(headers.get('link') ?? '')?.[1];
  const page = last ? Number(new URL(last, 'http://link').searchParams.get('page')) : NaN;
  return Number.isInteger(page) && page > 1 ? page - 1 : null;
}
