interface Entry {
  timer: NodeJS.Timeout | null;
  /** Set before `work` is called, so a touch from inside it counts as one during the call. */
  busy: boolean;
  running: Promise<void> | null;
  /** Touched while its work ran: that work may have read the state from before the touch. */
  again: boolean;
}

/**
 * Coalesces bursts of touches per key into one call of `work(key)` at most `delayMs` after the
 * first touch. A touch that arrives while the work for its key runs schedules one more call after
 * it, so the last touch is always followed by a call that starts after it. One call per key runs
 * at a time; keys are independent. `work` failures are the caller's to handle (they are ignored).
 */
export class PerKeyCoalescer {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly delayMs: number,
    private readonly work: (key: string) => Promise<void>,
  ) {}

  touch(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) {
      this.entries.set(key, { timer: this.schedule(key), busy: false, running: null, again: false });
      return;
    }
    // A pending timer already covers this touch; a running call may not.
    if (entry.busy) entry.again = true;
  }

  /** Keys with a call pending or running. */
  get size(): number {
    return this.entries.size;
  }

  /** Runs every pending call now and waits for all, including the follow-ups they schedule. */
  async drain(): Promise<void> {
    while (this.entries.size > 0) {
      const waits: Promise<void>[] = [];
      for (const [key, entry] of this.entries) {
        if (entry.timer) {
          clearTimeout(entry.timer);
          waits.push(this.run(key));
        } else if (entry.running) {
          waits.push(entry.running);
        }
      }
      await Promise.all(waits);
    }
  }

  private schedule(key: string): NodeJS.Timeout {
    const timer = setTimeout(() => void this.run(key), this.delayMs);
    timer.unref();
    return timer;
  }

  private run(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return Promise.resolve();
    entry.timer = null;
    entry.again = false;
    entry.busy = true;
    let call: Promise<void>;
    try {
      call = this.work(key);
    } catch (error) {
      call = Promise.reject(error);
    }
    entry.running = call.catch(() => undefined).finally(() => {
      entry.running = null;
      entry.busy = false;
      if (entry.again) {
        entry.again = false;
        entry.timer = this.schedule(key);
      } else {
        this.entries.delete(key);
      }
    });
    return entry.running;
  }
}
