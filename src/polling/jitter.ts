/**
 * `ms` ± `fraction` of it, uniformly (`random` in [0, 1)). Projects with the same interval, and a
 * new leader after a takeover, thereby drift apart instead of polling their trackers in step.
 */
export function jittered(ms: number, fraction: number, random: () => number = Math.random): number {
  const spread = ms * Math.min(Math.max(fraction, 0), 1);
  return Math.max(0, Math.round(ms - spread + 2 * spread * random()));
}

/** The wait after `failures` failed cycles in a row: `baseMs` doubling, never beyond `capMs`. */
export function retryDelay(failures: number, baseMs: number, capMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, failures - 1), Math.max(capMs, baseMs));
}
