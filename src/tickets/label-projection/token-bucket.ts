/**
 * A token bucket: `capacity` tokens, refilled continuously at `refillPerMs`. `take()` resolves
 * when a token is available, in call order, so a burst queues instead of overrunning the host.
 * `pauseFor()` holds every taker for a server-mandated wait (429 / secondary rate limit).
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private pausedUntil = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly capacity: number,
    private readonly refillPerMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    this.tokens = capacity;
    this.updatedAt = now();
  }

  /** Resolves when the caller may send one request. */
  take(): Promise<void> {
    const turn = this.tail.then(() => this.waitForToken());
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** No request leaves before `ms` from now (keeps the longer of two pauses). */
  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /** How long a server-mandated pause still holds every request (0: none). */
  get pausedForMs(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  /** Tokens available now (fractional), for tests and diagnostics. */
  get available(): number {
    this.refill();
    return this.tokens;
  }

  private async waitForToken(): Promise<void> {
    for (;;) {
      const paused = this.pausedUntil - this.now();
      if (paused > 0) {
        await this.sleep(paused);
        continue;
      }
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.sleep(Math.ceil((1 - this.tokens) / this.refillPerMs));
    }
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.updatedAt) * this.refillPerMs);
    this.updatedAt = now;
  }
}
