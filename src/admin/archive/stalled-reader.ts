import type { Readable } from 'node:stream';

const CHECK_EVERY_MS = 10_000;

/**
 * Destroys `source` once its consumer has left it waiting (`waitingSince`: when the source last
 * handed something out and was not asked for more; null while it is being asked) longer than
 * `limitMs`: a download nobody reads must not hold a database snapshot open for ever.
 */
export function abandonWhenStalled(source: Readable, waitingSince: () => number | null, limitMs: number): void {
  const timer = setInterval(() => {
    const since = waitingSince();
    if (since !== null && Date.now() - since > limitMs) {
      source.destroy(new Error(`the client read nothing for ${Math.round(limitMs / 1000)} s; the download was abandoned`));
    }
  }, Math.min(CHECK_EVERY_MS, limitMs));
  timer.unref();
  source.once('close', () => clearInterval(timer));
}
