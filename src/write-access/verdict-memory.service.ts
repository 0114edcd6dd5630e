import { Inject, Injectable, Logger } from '@nestjs/common';
import type { HostVerdict } from '../platforms/write-access-lookup.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { WRITE_ACCESS_OPTIONS, type WriteAccessOptions } from './write-access.options.js';

/** Sweep expired local entries once the map holds this many; past the cap the oldest go. */
const LOCAL_SWEEP_AT = 1_000;
const LOCAL_MAX = 10_000;

/**
 * Hosts' verdicts, remembered for `memoryMs` (spec: five minutes per author and repository) in
 * the store, so every replica shares them. While the store is not connected (or a command to it
 * fails) an in-process map with the same expiry stands in: verdicts are then per replica.
 */
@Injectable()
export class VerdictMemory {
  private readonly logger = new Logger('WriteAccess');
  private readonly local = new Map<string, { verdict: HostVerdict; expiresAt: number }>();

  constructor(
    private readonly store: StoreConnectionService,
    @Inject(WRITE_ACCESS_OPTIONS) private readonly options: WriteAccessOptions,
  ) {}

  /** `svc:write-access:<platform>:<repository>:<author>`. */
  key(platform: string, repository: string, author: string): string {
    return this.store.key('write-access', platform, repository, author);
  }

  async recall(key: string): Promise<HostVerdict | null> {
    const client = this.store.client;
    if (client && this.store.isConnected) {
      try {
        return parseVerdict(await client.get(key));
      } catch (error) {
        this.logger.debug(`write-access memory unreadable in the store, using this replica's: ${(error as Error).message}`);
      }
    }
    const entry = this.local.get(key);
    if (!entry) return null;
    if (entry.expiresAt > Date.now()) return entry.verdict;
    this.local.delete(key);
    return null;
  }

  async remember(key: string, verdict: HostVerdict): Promise<void> {
    const client = this.store.client;
    if (client && this.store.isConnected) {
      try {
        await client.set(key, JSON.stringify(verdict), 'PX', this.options.memoryMs);
        return;
      } catch (error) {
        this.logger.debug(`write-access memory not stored, keeping it in this replica: ${(error as Error).message}`);
      }
    }
    if (this.local.size >= LOCAL_SWEEP_AT) this.sweep();
    this.local.set(key, { verdict, expiresAt: Date.now() + this.options.memoryMs });
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.local) if (entry.expiresAt <= now) this.local.delete(key);
    for (const key of this.local.keys()) {
      if (this.local.size < LOCAL_MAX) break;
      this.local.delete(key);
    }
  }
}

/** A stored verdict, or null for nothing (or anything that is not one). */
function parseVerdict(raw: string | null): HostVerdict | null {
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as { granted?: unknown; reason?: unknown };
    if (value.granted === true) return { granted: true };
    if (value.granted === false && typeof value.reason === 'string') return { granted: false, reason: value.reason };
  } catch {
    // not ours: ask the host again
  }
  return null;
}
