import { TrackerError } from '../platforms/tracker-client.js';
import type { HostRateLimiter } from '../tickets/label-projection/host-rate-limiter.service.js';
import type { ProjectTracker } from '../tickets/label-projection/project-tracker.factory.js';
import { ensureActive } from './poll-aborted.js';

/**
 * A poll read under the tracker host's budget, shared with the label projection's writes: it
 * takes a token first (and so also waits out a hold the host asked for), and a wait the host
 * asks for (Retry-After, a rate-limit reset) holds every request to it, writes included.
 */
export async function trackerRead<T>(limiter: HostRateLimiter, tracker: ProjectTracker, active: () => boolean, read: () => Promise<T>): Promise<T> {
  await limiter.take(tracker.platform, tracker.host);
  // The wait may have been long (a rate-limit reset): the lease may have gone meanwhile.
  ensureActive(active);
  try {
    return await read();
  } catch (error) {
    if (error instanceof TrackerError && error.retryAfterMs) limiter.backOff(tracker.platform, tracker.host, error.retryAfterMs);
    throw error;
  }
}
