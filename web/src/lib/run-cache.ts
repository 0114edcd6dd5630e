import type { Run, RunPage } from '../api/types';

/**
 * How a hub `run.changed` lands in a cached runs list without a refetch: a run already listed is
 * replaced in place (a run that no longer matches the filter, e.g. a state filter, leaves);
 * a run not listed that matches is held back as "new" so the list does not jump under the
 * reader, until they ask for it.
 */
export interface PatchResult {
  page: RunPage;
  /** The run is new to this list and matches it: count it in "N new runs". */
  fresh: boolean;
}

export function patchRunPage(page: RunPage, run: Run, matches: boolean): PatchResult {
  const index = page.items.findIndex((r) => r.id === run.id);
  if (index === -1) return { page, fresh: matches };
  if (!matches) {
    const items = page.items.filter((r) => r.id !== run.id);
    return { page: { items, total: Math.max(0, page.total - 1) }, fresh: false };
  }
  if (isOlder(run, page.items[index]!)) return { page, fresh: false };
  const items = page.items.slice();
  items[index] = run;
  return { page: { ...page, items }, fresh: false };
}

/**
 * A change can arrive after a fresher copy (a refetch raced the hub): keep the copy that has
 * come further. Finished beats unfinished; otherwise the later of its timestamps.
 */
export function isOlder(candidate: Run, current: Run): boolean {
  if (current.finishedAt && !candidate.finishedAt) return true;
  if (current.startedAt && !candidate.startedAt && !candidate.finishedAt) return true;
  return false;
}

/** Live duration of a run: start (or claim) to end, or to `now` while it runs. */
export function durationMs(run: Run, now: number): number | null {
  const start = run.startedAt ?? null;
  if (!start) return null;
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  return Math.max(0, end - Date.parse(start));
}
