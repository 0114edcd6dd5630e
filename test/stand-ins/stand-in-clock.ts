/**
 * A tracker's clock that a test can move: the real time plus an offset, so the timestamps a
 * stand-in writes (`System.ChangedDate`, Jira `updated`, histories) still advance between calls
 * while a test jumps minutes ahead (a poll cursor, minute-precision JQL) without waiting.
 */
export class StandInClock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** From now on the clock reads `at`, and runs on from there. */
  set(at: Date | string): void {
    this.offsetMs = new Date(at).getTime() - Date.now();
  }
}
