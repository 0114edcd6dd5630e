import { sameName, type PollQuery } from '../tracker-client.js';

/**
 * The poller's WIQL (issue 17). One query in the team project:
 *
 *   [System.TeamProject] = @project
 *   AND ([System.State] IN (<statuses>)
 *        OR (([System.Tags] CONTAINS '<tag>' OR …) AND [System.State] NOT IN ('Closed', 'Removed', 'Done')))
 *   AND [System.ChangedDate] >= '<cursor, UTC>'
 *
 * A tag outlives the work item's life, so the tag branch leaves out finished work items; WIQL
 * cannot ask for a state *category*, so the finished states of the stock processes (Agile, CMMI:
 * Closed, Removed; Scrum, Basic: Done, Removed) stand in for it. A trigger status is never
 * excluded. The cursor needs `timePrecision=true` on the request: without it WIQL compares
 * dates by day and refuses a literal with a time.
 */

/** The stock processes' finished states (state categories Completed and Removed). */
export const FINISHED_STATES = ['Closed', 'Removed', 'Done'];

export function wiqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** UTC, to the second (floored: `>=` then keeps the cursor's own second). */
export function wiqlDateTime(at: Date): string {
  return `'${new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z')}'`;
}

/** Null when nothing can trigger (no statuses, no tags): no request is worth making. */
export function buildPollWiql(query: PollQuery): string | null {
  const branches: string[] = [];
  if (query.statuses.length > 0) branches.push(`[System.State] IN (${query.statuses.map(wiqlString).join(', ')})`);
  if (query.labels.length > 0) {
    const tags = query.labels.map((tag) => `[System.Tags] CONTAINS ${wiqlString(tag)}`).join(' OR ');
    const finished = FINISHED_STATES.filter((s) => !query.statuses.some((t) => sameName(s, t)));
    branches.push(finished.length > 0 ? `((${tags}) AND [System.State] NOT IN (${finished.map(wiqlString).join(', ')}))` : `(${tags})`);
  }
  if (branches.length === 0) return null;
  const where = ['[System.TeamProject] = @project', `(${branches.join(' OR ')})`];
  if (query.updatedSince !== null) where.push(`[System.ChangedDate] >= ${wiqlDateTime(query.updatedSince)}`);
  return `SELECT [System.Id] FROM WorkItems WHERE ${where.join(' AND ')} ORDER BY [System.Id] ASC`;
}
