import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { withTimeout } from '../common/with-timeout.js';
import { ConfigService } from '../config/config.service.js';
import { InstanceIdentity } from '../store/instance-identity.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { RunRecordsService } from './run-records.service.js';

/**
 * Heartbeats of the runs this process's consumer owns: every `queue.heartbeat_interval_seconds`
 * the store key `svc:heartbeat:<runId>` (value: this instance, TTL `heartbeat_ttl_seconds`) and the
 * run's `heartbeat_at` are renewed, together with this consumer's liveness key
 * `svc:consumer:<instance>`. The database copy lets a store flush pass without a false alarm.
 */
@Injectable()
export class HeartbeatService implements OnApplicationShutdown {
  private readonly logger = new Logger('Heartbeat');
  private readonly runs = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** When a renewal of this process's runs last reached the store or the database. */
  private lastRenewedAt = Date.now();
  private readonly silenceListeners = new Set<(silentMs: number) => void>();

  constructor(
    private readonly store: StoreConnectionService,
    private readonly records: RunRecordsService,
    private readonly config: ConfigService,
    private readonly instance: InstanceIdentity,
  ) {}

  private get ttlMs(): number {
    return this.config.config.queue.heartbeat_ttl_seconds * 1000;
  }

  heartbeatKey(runId: string): string {
    return this.store.key('heartbeat', runId);
  }

  consumerKey(instanceId: string): string {
    return this.store.key('consumer', instanceId);
  }

  /** Starts the renewal timer and the consumer's liveness key (the consumer is running). */
  begin(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.beat(), this.config.config.queue.heartbeat_interval_seconds * 1000);
    void this.beat();
  }

  async start(runId: string): Promise<void> {
    // Ownership first: a run whose ownership was never recorded must not be kept beating.
    await this.records.takeOwnership(runId, this.instance.id);
    if (this.runs.size === 0) this.lastRenewedAt = Date.now();
    this.runs.add(runId);
    await this.setKeys([runId]);
  }

  /**
   * Called after a beat in which no renewal has reached the store or the database for
   * `heartbeat_ttl_seconds`: from then on the stale-job detector of another replica may revert
   * these runs and their tickets may be claimed again, so they must stop (self-fencing).
   */
  onSilence(listener: (silentMs: number) => void): () => void {
    this.silenceListeners.add(listener);
    return () => this.silenceListeners.delete(listener);
  }

  /** Gives up ownership of a run still waiting for admission (its request went back to the queue). */
  async release(runId: string): Promise<void> {
    await this.stop(runId);
    await this.records.releaseOwnership(runId, this.instance.id);
  }

  async stop(runId: string): Promise<void> {
    this.runs.delete(runId);
    if (this.store.isConnected) await this.store.client?.del(this.heartbeatKey(runId)).catch(() => undefined);
  }

  async isBeating(runId: string): Promise<boolean> {
    return (await this.store.client?.exists(this.heartbeatKey(runId))) === 1;
  }

  async isConsumerAlive(instanceId: string): Promise<boolean> {
    return (await this.store.client?.exists(this.consumerKey(instanceId))) === 1;
  }

  private async beat(): Promise<void> {
    const runs = [...this.runs];
    // Bounded: a connection that hangs (packets dropped, not refused) counts as a failed renewal.
    const within = this.config.config.queue.heartbeat_interval_seconds * 1000;
    const stored = await withTimeout(this.records.touch(runs, this.instance.id), within, 'timed out').then(() => true, (error: Error) => {
      this.logger.warn(`heartbeat not stored: ${error.message}`);
      return false;
    });
    const kept = await withTimeout(this.setKeys(runs), within, 'timed out').catch(() => false);
    if (runs.length === 0 || stored || kept) {
      this.lastRenewedAt = Date.now();
      return;
    }
    const silentMs = Date.now() - this.lastRenewedAt;
    if (silentMs >= this.ttlMs) for (const listener of this.silenceListeners) listener(silentMs);
  }

  /** True when the keys were written. */
  private async setKeys(runs: string[]): Promise<boolean> {
    const client = this.store.client;
    if (!client || !this.store.isConnected) return false;
    const multi = client.multi().set(this.consumerKey(this.instance.id), '1', 'PX', this.ttlMs);
    // Only runs still held now: a beat's list was taken before its database write, and a run
    // stopped meanwhile must not get its key back (stop's DEL went first on this same connection).
    for (const runId of runs) if (this.runs.has(runId)) multi.set(this.heartbeatKey(runId), this.instance.id, 'PX', this.ttlMs);
    return multi.exec().then((replies) => replies !== null && replies.every(([error]) => error === null), () => false);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.store.isConnected) await this.store.client?.del(this.consumerKey(this.instance.id)).catch(() => undefined);
  }
}
