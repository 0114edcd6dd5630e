import type { TrackerHttp } from '../http/tracker-http.js';
import { sameName, type TriggerSet } from '../tracker-client.js';

/**
 * When a work item last moved into a trigger state or was given a trigger tag, from its updates
 * (`GET …/workItems/{id}/updates`, oldest first, paged with `$top` ≤ 200 and `$skip`). Each
 * update carries only the fields it changed, as `{oldValue, newValue}`; the first one (the
 * creation) has no `oldValue`, so a work item created in a trigger state counts.
 */

const PAGE = 200;

interface FieldChange {
  oldValue?: unknown;
  newValue?: unknown;
}
interface WorkItemUpdate {
  id: number;
  /** When the revision was superseded; the latest update answers the sentinel 9999-01-01. */
  revisedDate?: string;
  fields?: Record<string, FieldChange>;
}

export async function workItemTriggeredAt(http: TrackerHttp, updatesPath: string, trigger: TriggerSet): Promise<Date | null> {
  let latest: number | null = null;
  for (let skip = 0; ; ) {
    const res = await http.request<{ value?: WorkItemUpdate[] }>({ method: 'GET', path: updatesPath, query: { 'api-version': '7.1', $top: PAGE, $skip: skip } });
    const page = res.body?.value ?? [];
    for (const update of page) {
      if (!isTrigger(update, trigger)) continue;
      const at = updateTime(update);
      if (at !== null && (latest === null || at > latest)) latest = at;
    }
    skip += page.length;
    if (page.length < PAGE) return latest === null ? null : new Date(latest);
  }
}

function isTrigger(update: WorkItemUpdate, trigger: TriggerSet): boolean {
  const state = update.fields?.['System.State']?.newValue;
  if (typeof state === 'string' && trigger.statuses.some((s) => sameName(s, state))) return true;
  const tags = update.fields?.['System.Tags'];
  if (!tags) return false;
  const before = tagsOf(tags.oldValue);
  const after = tagsOf(tags.newValue);
  return trigger.labels.some((label) => after.some((t) => sameName(t, label)) && !before.some((t) => sameName(t, label)));
}

/** The update's own `System.ChangedDate`; `revisedDate` only when it is a real date. */
function updateTime(update: WorkItemUpdate): number | null {
  const changed = update.fields?.['System.ChangedDate']?.newValue;
  const candidates = [typeof changed === 'string' ? changed : null, update.revisedDate ?? null];
  for (const value of candidates) {
    const at = value === null ? NaN : Date.parse(value);
    if (Number.isFinite(at) && new Date(at).getUTCFullYear() < 9999) return at;
  }
  return null;
}

function tagsOf(value: unknown): string[] {
  return typeof value === 'string' ? value.split(';').map((t) => t.trim()).filter((t) => t.length > 0) : [];
}
