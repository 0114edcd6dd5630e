import type { PollQuery } from '../tracker-client.js';

/**
 * The poller's JQL (issue 17):
 *
 *   project = "KEY" AND (status in (<statuses>) OR (labels in (<labels>) AND statusCategory != Done))
 *   AND updated >= "yyyy/MM/dd HH:mm" ORDER BY key ASC
 *
 * A label outlives the life, so the label branch leaves out finished issues (the Done
 * category, whatever the workflow calls its statuses). JQL date literals have minute precision
 * and are read in the time zone of the user running the search (`GET /myself` → `timeZone`),
 * so the cursor is written in that zone, floored to the minute: the poller's overlap covers the
 * extra seconds, and a search may answer issues updated up to a minute before the cursor.
 */

export function jqlString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Null when nothing can trigger (no statuses, no labels): no request is worth making. */
export function buildPollJql(projectKey: string, query: PollQuery, since: string | null): string | null {
  const branches: string[] = [];
  if (query.statuses.length > 0) branches.push(`status in (${query.statuses.map(jqlString).join(', ')})`);
  if (query.labels.length > 0) branches.push(`(labels in (${query.labels.map(jqlString).join(', ')}) AND statusCategory != Done)`);
  if (branches.length === 0) return null;
  const where = [`project = ${jqlString(projectKey)}`, `(${branches.join(' OR ')})`];
  if (since !== null) where.push(`updated >= ${jqlString(since)}`);
  return `${where.join(' AND ')} ORDER BY key ASC`;
}

/** Widest westward UTC offset in use (UTC−12): what an unknown zone is assumed to be at worst. */
const WEST_MOST_MS = 12 * 3600_000;

const HOUR_MS = 3600_000;

/**
 * `yyyy/MM/dd HH:mm`, the wall time of `at` in `timeZone`, never read back as a later instant:
 * a wall time that repeats (the hour a clock falls back) is written an hour earlier, and a zone
 * this runtime does not know is replaced by UTC twelve hours earlier (at the cost of a wider read).
 */
export function jqlDateTime(at: Date, timeZone: string): string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
  } catch {
    return jqlDateTime(new Date(at.getTime() - WEST_MOST_MS), 'UTC');
  }
  const wall = (t: number): string => {
    const part = Object.fromEntries(format.formatToParts(t).map((p) => [p.type, p.value]));
    return `${part['year']}/${part['month']}/${part['day']} ${part['hour']}:${part['minute']}`;
  };
  const written = wall(at.getTime());
  return written === wall(at.getTime() + HOUR_MS) ? wall(at.getTime() - HOUR_MS) : written;
}

/** Jira's `2026-11-24T06:03:58.123+0000` (no colon in the offset) as ISO 8601 UTC; null when unreadable. */
export function jiraTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const at = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(at) ? new Date(at).toISOString() : null;
}
