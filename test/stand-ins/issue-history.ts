/**
 * What the GitHub and GitLab stand-ins share for issue times and label history: the label
 * changes between two label sets, and the `since` / `updated_after` filter.
 */

/** Labels added and removed between two sets (label names compare case-insensitively on both hosts). */
export function labelChanges(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[] } {
  const lower = (labels: readonly string[]): Set<string> => new Set(labels.map((l) => l.toLowerCase()));
  const had = lower(before);
  const has = lower(after);
  return { added: after.filter((l) => !had.has(l.toLowerCase())), removed: before.filter((l) => !has.has(l.toLowerCase())) };
}

/** `updated_at` at or after the parameter; `undefined` when absent, `null` when unparsable (the host refuses it). */
export function updatedSinceParam(query: URLSearchParams, name: string): number | undefined | null {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : at;
}

/** Sort by a time then by number (stable for equal times), ascending or descending. */
export function byTime<T>(time: (item: T) => string, number: (item: T) => number, direction: 'asc' | 'desc'): (a: T, b: T) => number {
  const sign = direction === 'asc' ? 1 : -1;
  return (a, b) => sign * (Date.parse(time(a)) - Date.parse(time(b)) || number(a) - number(b));
}
