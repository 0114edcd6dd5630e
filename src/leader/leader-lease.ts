import { randomUUID } from 'node:crypto';
import type { HeldLock, LockService } from '../store/lock.service.js';

export type LeaseListener = (held: boolean, why: string) => void;

/**
 * One leader lease: acquired with set-if-absent and a TTL, renewed and released by
 * compare-and-set on a token unique to this acquisition (`<instance>:<uuid>`), so a holder that
 * paused past the TTL can neither renew nor release a new holder's lease. Any doubt (a failed
 * renewal, a store error) gives the lease up at once: better no leader for a moment than two.
 */
export class LeaderLease {
  private lock: HeldLock | null = null;
  private busy = false;
  private readonly listeners = new Set<LeaseListener>();

  constructor(
    readonly key: string,
    private readonly instanceId: string,
    private readonly ttlMs: number,
    private readonly locks: LockService,
  ) {}

  get held(): boolean {
    return this.lock !== null;
  }

  onChange(listener: LeaseListener): void {
    this.listeners.add(listener);
  }

  /** Renews the lease when held, tries to take it otherwise. Never throws. */
  async tick(connected: boolean): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      if (!connected) {
        if (this.lock) this.lose('store not connected');
        return;
      }
      if (this.lock) {
        if (!(await this.locks.renew(this.lock, this.ttlMs))) this.lose('lease expired or taken over');
        return;
      }
      this.lock = await this.locks.acquire(this.key, this.ttlMs, `${this.instanceId}:${randomUUID()}`);
      if (this.lock) this.notify(true, 'lease acquired');
    } catch (error) {
      if (this.lock) this.lose(`store error: ${(error as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Gives the lease back (compare-and-set), e.g. on shutdown, so another replica takes over at once. */
  async release(): Promise<void> {
    const lock = this.lock;
    if (!lock) return;
    this.lose('released');
    await this.locks.release(lock).catch(() => undefined);
  }

  private lose(why: string): void {
    this.lock = null;
    this.notify(false, why);
  }

  private notify(held: boolean, why: string): void {
    for (const listener of this.listeners) listener(held, why);
  }
}
