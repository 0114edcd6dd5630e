import type { PollCursor } from './poll-cursors.service.js';

export interface PollWindow {
  /** No "updated since": every open ticket that can trigger is read. */
  fullSweep: boolean;
  updatedSince: Date | null;
}

/**
 * What a cycle asks the tracker for. A full sweep when the project has no cursor yet, on its
 * first cycle since this replica took the lease (or since its configuration changed), and when
 * the last full sweep is `fullSweepEveryMs` old: it catches what a cursor can miss (a tracker
 * whose "updated" time lags, a ticket that went Pending without changing). Otherwise tickets
 * updated since the last good cycle's start, minus `overlapMs` for clock skew and late writes.
 */
export function pollWindow(stored: PollCursor | null, sweptSinceStart: boolean, now: Date, options: { overlapMs: number; fullSweepEveryMs: number }): PollWindow {
  const sweepDue = stored?.lastFullSweepAt == null || now.getTime() - stored.lastFullSweepAt.getTime() >= options.fullSweepEveryMs;
  if (stored === null || !sweptSinceStart || sweepDue) return { fullSweep: true, updatedSince: null };
  return { fullSweep: false, updatedSince: new Date(stored.cursor.getTime() - options.overlapMs) };
}
