import type { TrackerHttpOptions } from '../platforms/http/tracker-http.js';

/** Injection token of the poller's tunables (tests shorten the timings). */
export const POLLING_OPTIONS = Symbol('POLLING_OPTIONS');

export interface PollingOptions {
  /**
   * Test-only: replaces every project's `interval_seconds` (which cannot go under 10 s in the
   * configuration). null: the configured interval.
   */
  intervalMs: number | null;
  /** Each wait between two polls is the interval ± this fraction (spreads projects and replicas). */
  jitter: number;
  /** A poll asks for tickets updated since the last cycle's start minus this, for clock skew and late writes. */
  overlapMs: number;
  /** A full sweep (no "updated since") this often, and on each project's first cycle after taking the lease. */
  fullSweepEveryMs: number;
  /** First wait after a failed cycle; doubles per failure, capped by the project's interval. */
  retryBaseMs: number;
  /** The tracker clients' HTTP layer for poll reads (the poller retries whole cycles itself). */
  http: TrackerHttpOptions;
}

export const DEFAULT_POLLING_OPTIONS: PollingOptions = {
  intervalMs: null,
  jitter: 0.1,
  overlapMs: 2 * 60_000,
  fullSweepEveryMs: 60 * 60_000,
  retryBaseMs: 5_000,
  http: { maxAttempts: 2 },
};
