import { withTimeout } from '../common/with-timeout.js';

/** A revision read slower than this is given up: the request is served the cached document. */
const READ_TIMEOUT_MS = 500;

/**
 * Reads the access revision for every request, at most one query in flight per process. A
 * request may only share a read that starts after it arrived (a read already in flight may
 * predate a write the caller has just seen answered), so callers arriving during a read wait for
 * the next one, which all of them share. Under any load: one primary-key read at a time.
 */
export class RevisionCheck {
  private inFlight: Promise<string | null> | null = null;
  private queued: Promise<string | null> | null = null;

  constructor(private readonly read: () => Promise<string>) {}

  /** The revision now, or null when it could not be read in time. */
  current(): Promise<string | null> {
    if (this.inFlight === null) return this.start();
    this.queued ??= this.inFlight.then(() => {
      this.queued = null;
      return this.current();
    });
    return this.queued;
  }

  private start(): Promise<string | null> {
    const read = withTimeout(this.read(), READ_TIMEOUT_MS, 'access revision read timed out')
      .catch(() => null)
      .finally(() => {
        if (this.inFlight === read) this.inFlight = null;
      });
    this.inFlight = read;
    return read;
  }
}
