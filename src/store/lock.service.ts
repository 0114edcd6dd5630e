import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { StoreConnectionService } from './store-connection.service.js';

/** Deletes the key only while it still holds our token: a holder whose lock expired cannot free another's. */
const RELEASE_IF_OWNER = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/** Extends the TTL only while it still holds our token. */
const RENEW_IF_OWNER = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export class StoreUnavailableError extends Error {
  constructor(cause?: string) {
    super(`store unavailable${cause ? `: ${cause}` : ''}`);
  }
}

export interface HeldLock {
  key: string;
  token: string;
}

/**
 * Locks and leases in the store: set-if-absent with a TTL, renewed and released by
 * compare-and-set on a random token, so a paused holder cannot affect a new holder.
 */
@Injectable()
export class LockService {
  constructor(private readonly store: StoreConnectionService) {}

  /**
   * The lock, or null when someone else holds it. Throws StoreUnavailableError without a store.
   * `token` (unique per acquisition) lets a lease carry who holds it, e.g. `<instance>:<uuid>`.
   */
  async acquire(key: string, ttlMs: number, token: string = randomUUID()): Promise<HeldLock | null> {
    const client = this.requireClient();
    const ok = await client.set(key, token, 'PX', ttlMs, 'NX');
    return ok === 'OK' ? { key, token } : null;
  }

  /** True when we still held it and extended it. */
  async renew(lock: HeldLock, ttlMs: number): Promise<boolean> {
    const client = this.requireClient();
    return (await client.eval(RENEW_IF_OWNER, 1, lock.key, lock.token, String(ttlMs))) === 1;
  }

  /** True when we still held it and released it. */
  async release(lock: HeldLock): Promise<boolean> {
    const client = this.requireClient();
    return (await client.eval(RELEASE_IF_OWNER, 1, lock.key, lock.token)) === 1;
  }

  /** Runs `work` under the lock; null (work not run) when the lock is held elsewhere. */
  async withLock<T>(key: string, ttlMs: number, work: () => Promise<T>): Promise<{ value: T } | null> {
    const lock = await this.acquire(key, ttlMs);
    if (!lock) return null;
    try {
      return { value: await work() };
    } finally {
      await this.release(lock).catch(() => undefined);
    }
  }

  private requireClient() {
    const client = this.store.client;
    if (!client) throw new StoreUnavailableError('KVSTORE_URL is not set');
    if (!this.store.isConnected && client.status !== 'ready') throw new StoreUnavailableError(`not connected to ${this.store.displayUrl}`);
    return client;
  }
}
