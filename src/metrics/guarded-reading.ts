import { withTimeout } from '../common/with-timeout.js';

/** Each scrape-time reading of a dependency gets this long: a scrape never waits on a stuck one. */
export const READING_TIMEOUT_MS = 1000;

export interface ReadingReport {
  /** Called with each reading as it starts; it settles once its success or failure is reported. */
  started?(reading: Promise<unknown>): void;
  /** Called on every failed or timed-out reading (it is counted). */
  failed(error: Error, firstOfStreak: boolean): void;
  /** Called once when a reading succeeds after failures. */
  recovered(): void;
}

/**
 * One dependency read at scrape time (queue depth, capacity in use): bounded by a timeout and
 * never throwing, so a failed reading can never fail the scrape. It resolves null instead,
 * and the caller leaves its gauge out of that scrape rather than repeat a stale value as if
 * current. `report` hears of each failure and of the end of a failure streak (log once, not
 * once per scrape).
 */
export class GuardedReading {
  private failing = false;

  constructor(
    private readonly name: string,
    private readonly report: ReadingReport,
    private readonly timeoutMs = READING_TIMEOUT_MS,
  ) {}

  read<T>(reading: () => Promise<T>): Promise<T | null> {
    const settled = this.attempt(reading);
    this.report.started?.(settled);
    return settled;
  }

  private async attempt<T>(reading: () => Promise<T>): Promise<T | null> {
    try {
      // Inside the promise chain: a reading that throws synchronously is a failed reading too.
      const value = await withTimeout(Promise.resolve().then(reading), this.timeoutMs, `${this.name} not read within ${this.timeoutMs} ms`);
      if (this.failing) {
        this.failing = false;
        this.report.recovered();
      }
      return value;
    } catch (error) {
      const first = !this.failing;
      this.failing = true;
      this.report.failed(error instanceof Error ? error : new Error(String(error)), first);
      return null;
    }
  }
}
