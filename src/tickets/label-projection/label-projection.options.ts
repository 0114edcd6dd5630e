import type { TrackerHttpOptions } from '../../platforms/http/tracker-http.js';
import type { Platform } from '../../platforms/platform.js';

/** Injection token of the projection's tunables (tests shorten the timings). */
export const LABEL_PROJECTION_OPTIONS = Symbol('LABEL_PROJECTION_OPTIONS');

/** A host's budget for content-creating (write) requests: a token bucket. */
export interface WriteRateLimit {
  /** Sustained writes per minute. */
  perMinute: number;
  /** Writes allowed back to back before the sustained rate applies. */
  burst: number;
}

export interface LabelProjectionOptions {
  /**
   * Write budgets per platform (per API host) that replace the platform's own: a platform left
   * out takes its traits' `writeRate` (its folder says why its figure). A burst beyond the budget
   * queues instead of hitting 403/429.
   */
  rateLimits: Readonly<Partial<Record<Platform, WriteRateLimit>>>;
  /** Background attempts of one projection before its ticket joins the stale-labels set. */
  maxAttempts: number;
  /** First retry delay; doubles per attempt (with jitter), capped by `maxRetryDelayMs`. */
  retryBaseMs: number;
  maxRetryDelayMs: number;
  /** How often tickets in the stale-labels set are retried. */
  staleRetryMs: number;
  /**
   * While a host's writes wait for it to answer again (back-off or stale-labels set), it is
   * probed this often by one cheap read; once it answers, its waiting tickets are retried at once.
   */
  recoveryProbeMs: number;
  /** Re-read-and-retry rounds after `PreconditionFailed` (A: 412, C: 409/412) within one attempt. */
  preconditionRetries: number;
  /** Platform D: TTL of the extra label lock (spec: 10 s). */
  labelLockMs: number;
  /** Longest error text in a failure comment before it is cut. */
  commentMaxChars: number;
  /** Options of each tracker client's HTTP layer (its own short retries, timeouts). */
  http: TrackerHttpOptions;
  /** Start-up catch-up: tickets changed this recently have their label re-checked. */
  catchUpWindowMs: number;
  /** Start-up catch-up: at most this many tickets (newest first), and as many failure comments. */
  catchUpMaxTickets: number;
  /** Start-up catch-up: delay between two tickets' passes, so a start does not burst reads at a tracker. */
  catchUpSpacingMs: number;
}

export const DEFAULT_LABEL_PROJECTION_OPTIONS: LabelProjectionOptions = {
  rateLimits: {},
  maxAttempts: 6,
  retryBaseMs: 2_000,
  maxRetryDelayMs: 5 * 60_000,
  staleRetryMs: 60_000,
  recoveryProbeMs: 5_000,
  preconditionRetries: 5,
  labelLockMs: 10_000,
  commentMaxChars: 4_000,
  http: {},
  catchUpWindowMs: 24 * 60 * 60_000,
  catchUpMaxTickets: 500,
  catchUpSpacingMs: 250,
};
