import { identityIdOf } from './azure-devops-pull-request-reviews.js';
import type { AdoWorkItemState, AdoWorkItemUpdate } from './azure-devops-stand-in.js';
import { json, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * Work item revisions as the service keeps them: every change bumps `rev`, moves
 * `System.ChangedDate` forward and records an update with the fields it changed.
 */

/** `revisedDate` of the latest revision, as the service answers it. */
const NOT_REVISED = '9999-01-01T00:00:00Z';

/** A new revision at `now`, with the fields that changed since `before` (the creation: every field). */
export function recordRevision(item: AdoWorkItemState, before: Record<string, string>, by: string, now: Date): void {
  // Every revision moves System.ChangedDate forward, even two within one millisecond.
  const last = Date.parse(item.fields['System.ChangedDate'] ?? '') || 0;
  const at = new Date(Math.max(now.getTime(), last + 1)).toISOString();
  item.rev++;
  item.fields['System.ChangedDate'] = at;
  if (item.rev === 1) item.fields['System.CreatedDate'] = at;
  const fields: AdoWorkItemUpdate['fields'] = { 'System.Rev': item.rev === 1 ? { newValue: 1 } : { oldValue: item.rev - 1, newValue: item.rev } };
  for (const name of new Set([...Object.keys(before), ...Object.keys(item.fields)])) {
    const [oldValue, newValue] = [before[name], item.fields[name]];
    if (oldValue !== newValue) fields[name] = { ...(oldValue !== undefined ? { oldValue } : {}), ...(newValue !== undefined ? { newValue } : {}) };
  }
  const previous = item.updates.at(-1);
  if (previous) previous.revisedDate = at; // superseded now
  item.updates.push({ id: item.updates.length + 1, rev: item.rev, by, revisedDate: NOT_REVISED, fields });
}

/** `GET …/workItems/{id}/updates`: oldest first, `$top` (≤ 200, the default) and `$skip`. */
export function listUpdates(item: AdoWorkItemState, req: RecordedRequest, organizationUrl: string): StandInResponse {
  const top = Math.min(200, Number(req.query.get('$top')) || 200);
  const skip = Math.max(0, Number(req.query.get('$skip')) || 0);
  const value = item.updates.slice(skip, skip + top).map((u) => ({
    id: u.id,
    workItemId: item.id,
    rev: u.rev,
    revisedBy: { id: identityIdOf(u.by), displayName: u.by.split('@')[0], uniqueName: u.by },
    revisedDate: u.revisedDate,
    fields: u.fields,
    url: `${organizationUrl}/_apis/wit/workItems/${item.id}/updates/${u.id}`,
  }));
  return json(200, { count: value.length, value });
}
