import type { TrackerHttpOptions } from '../platforms/http/tracker-http.js';
import { WRITE_ACCESS_MEMORY_MS } from './write-access.js';

/** Injection token of the write-access check's tunables (tests shorten the memory). */
export const WRITE_ACCESS_OPTIONS = Symbol('WRITE_ACCESS_OPTIONS');

export interface WriteAccessOptions {
  /** How long a host's verdict is remembered per author and repository. */
  memoryMs: number;
  /** The lookups' HTTP layer. */
  http: TrackerHttpOptions;
}

export const DEFAULT_WRITE_ACCESS_OPTIONS: WriteAccessOptions = {
  memoryMs: WRITE_ACCESS_MEMORY_MS,
  // The check sits on the webhook path before a command starts: a slow host is refused (and
  // asked again next time) rather than holding the delivery for the default 4 × 10 s.
  http: { timeoutMs: 5_000, maxAttempts: 2, maxRetryWaitMs: 5_000 },
};
