import type { TrackerHttp } from '../http/tracker-http.js';
import { sameName, TrackerError, type TriggerSet } from '../tracker-client.js';
import { jiraTimestamp } from './jira-poll.js';

/**
 * An issue's change history and when it last showed a trigger. Jira Cloud pages it at
 * `GET issue/{key}/changelog` (oldest first, `startAt`/`maxResults` ≤ 100, `isLast`/`total`);
 * a Data Center without that resource (404) answers every history in
 * `GET issue/{key}?expand=changelog`, which the reader then uses for good.
 */

const PAGE = 100;

interface HistoryItem {
  field?: string;
  fromString?: unknown;
  /** Read through `text()`: on a parsed object an absent `toString` is Object's method. */
  toString?: unknown;
}
export interface JiraHistory {
  id?: string;
  created?: string;
  items?: HistoryItem[];
}
interface ChangelogPage {
  values?: JiraHistory[];
  startAt?: number;
  total?: number;
  isLast?: boolean;
}

export class JiraChangelog {
  private source: 'changelog' | 'expand' = 'changelog';

  constructor(private readonly http: TrackerHttp) {}

  /** `issuePath`: `rest/api/2/issue/{key}`. */
  async histories(issuePath: string): Promise<JiraHistory[]> {
    if (this.source === 'expand') return this.expanded(issuePath);
    try {
      return await this.paged(issuePath);
    } catch (err) {
      if (!(err instanceof TrackerError) || err.status !== 404) throw err;
      const found = await this.expanded(issuePath); // a missing issue fails here too, and nothing is learnt
      this.source = 'expand';
      return found;
    }
  }

  private async paged(issuePath: string): Promise<JiraHistory[]> {
    const out: JiraHistory[] = [];
    for (let startAt = 0; ; ) {
      const res = await this.http.request<ChangelogPage>({ method: 'GET', path: `${issuePath}/changelog`, query: { startAt, maxResults: PAGE } });
      const values = res.body?.values ?? [];
      out.push(...values);
      startAt += values.length;
      const last = res.body?.isLast ?? (res.body?.total === undefined || startAt >= res.body.total);
      if (last || values.length === 0) return out;
    }
  }

  private async expanded(issuePath: string): Promise<JiraHistory[]> {
    const res = await this.http.request<{ changelog?: { histories?: JiraHistory[] } }>({ method: 'GET', path: issuePath, query: { expand: 'changelog', fields: 'status' } });
    return res.body?.changelog?.histories ?? [];
  }
}

/** The latest history moving the issue into a trigger status or adding a trigger label; null if none. */
export function latestTrigger(histories: readonly JiraHistory[], trigger: TriggerSet): Date | null {
  let latest: number | null = null;
  for (const history of histories) {
    if (!(history.items ?? []).some((item) => isTrigger(item, trigger))) continue;
    const at = jiraTimestamp(history.created);
    if (at !== null && (latest === null || Date.parse(at) > latest)) latest = Date.parse(at);
  }
  return latest === null ? null : new Date(latest);
}

function isTrigger(item: HistoryItem, trigger: TriggerSet): boolean {
  const field = (item.field ?? '').toLowerCase();
  const to = text(item.toString);
  if (field === 'status') return to !== null && trigger.statuses.some((s) => sameName(s, to));
  if (field !== 'labels') return false;
  // Labels hold no spaces; a history lists the whole set before and after, space-separated.
  const before = words(text(item.fromString));
  const after = words(to);
  return trigger.labels.some((label) => after.some((l) => sameName(l, label)) && !before.some((l) => sameName(l, label)));
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function words(value: string | null): string[] {
  return (value ?? '').split(/\s+/).filter((w) => w.length > 0);
}
