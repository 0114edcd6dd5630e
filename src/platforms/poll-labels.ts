import type { TriggerSet } from './tracker-client.js';

/**
 * The poll's label arithmetic on the label-only trackers (A = GitHub, B = GitLab), where a
 * status is a label: what makes a ticket pollable, and the read strategy both clients share.
 *
 * Both list APIs AND their `labels=` filter and offer no OR (GitLab's REST list has `not[...]`
 * but no `or[...]`; only its GraphQL has `or: {labelNames}`). So a poll either reads the issues
 * updated since the cursor unfiltered and keeps the triggering ones itself (steady state: one
 * page), or asks once per trigger label (a full sweep, or a cursor read that would page too far).
 */

/** Statuses and mapped labels, each once (compared case-insensitively, as statusFromLabels does). */
export function triggerLabels(trigger: TriggerSet): string[] {
  const seen = new Set<string>();
  return [...trigger.statuses, ...trigger.labels].filter((name) => {
    const key = name.toLowerCase();
    if (name.length === 0 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function carriesAny(labels: readonly string[], wanted: readonly string[]): boolean {
  const present = new Set(labels.map((l) => l.toLowerCase()));
  return wanted.some((w) => present.has(w.toLowerCase()));
}

/**
 * The cursor as `since` / `updated_after` (ISO 8601, `Z`), rounded down to the second: GitHub
 * documents whole seconds, and both compare "at or after", so rounding down only widens the read.
 */
export function sinceParam(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * After an unfiltered first page that has more: keep paging it (`remainingPages` more requests)
 * only when that costs no more than one request per trigger label; when the host did not say how
 * many pages remain (GitLab omits `X-Total-Pages` past 10,000 issues), ask per label.
 */
export function pageOnUnfiltered(remainingPages: number | null, triggerCount: number): boolean {
  return remainingPages !== null && remainingPages <= triggerCount;
}

/** The latest of some ISO 8601 times, or null when there are none. */
export function latestTime(times: Iterable<string>): Date | null {
  let latest: number | null = null;
  for (const time of times) {
    const at = Date.parse(time);
    if (!Number.isNaN(at) && (latest === null || at > latest)) latest = at;
  }
  return latest === null ? null : new Date(latest);
}

/** A bound on any poll's paging (100 issues a page): a host that never stops is a failure, not a truncation. */
export const MAX_POLL_PAGES = 1000;
