import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { StoreConnectionService } from '../../store/store-connection.service.js';

/** The store key a replica's hub holds while it has a subscriber or watcher. */
export const RUN_CHANGES_AUDIENCE_KEY = ['hub', 'listening'] as const;
/** How often a listening hub renews the key, and how often others look for it. */
const REFRESH_MS = 1_000;
/** How long the key outlives a hub that stopped renewing it (crashed, or its last client left). */
const AUDIENCE_TTL_SECONDS = 5;

/**
 * Whether anyone can receive `run.changed`: a hub (on any replica) with a `runs.subscribe`r or a
 * run watcher. Reading a Run and putting it on the store for nobody costs the claim path a
 * database read and a store round trip per change, so the notifier asks here first. The local
 * hub says so at once (`probe`, `listening()`); other replicas learn it from a store key within
 * about a second, when a client of theirs subscribes.
 */
@Injectable()
export class RunChangeAudience implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly probes: (() => boolean)[] = [];
  private remote = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly store: StoreConnectionService) {}

  onApplicationBootstrap(): void {
    if (!this.store.isConfigured) return;
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  /** A local listener (the hub, chat's follower) tells how to see whether it listens now. */
  watchLocal(probe: () => boolean): void {
    this.probes.push(probe);
  }

  private probe(): boolean {
    return this.probes.some((p) => p());
  }

  /** The hub gained a listener: other replicas are told at once, not at the next refresh. */
  listening(): void {
    void this.announce();
  }

  /** True when a change would reach someone. */
  present(): boolean {
    return this.probe() || this.remote;
  }

  private async refresh(): Promise<void> {
    const client = this.store.client;
    if (!client || !this.store.isConnected) return;
    try {
      if (this.probe()) await this.announce();
      else this.remote = (await client.exists(this.key())) === 1;
    } catch {
      // Unknown: keep publishing while unsure, so nobody misses a change.
      this.remote = true;
    }
  }

  private async announce(): Promise<void> {
    const client = this.store.client;
    if (!client || !this.store.isConnected) return;
    await client.set(this.key(), '1', 'EX', AUDIENCE_TTL_SECONDS).catch(() => undefined);
  }

  private key(): string {
    return this.store.key(...RUN_CHANGES_AUDIENCE_KEY);
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
