import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { SERVICE_ENVIRONMENT } from '../../config/config.tokens.js';
import type { ServiceEnvironment } from '../../config/environment.js';
import { InstanceIdentity } from '../../store/instance-identity.service.js';
import { StoreConnectionService } from '../../store/store-connection.service.js';

type Listener = (runId: string) => void;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The store's pub/sub channel `svc:control`: a replica that ended a run's record (a cancel) tells
 * every replica to look at that run now. A message is only a hint to check the database at once,
 * never an order: it carries nothing but a run id, and whoever hears it stops a run only when
 * the database says the run has ended. A lost message (store down, a replica reconnecting) costs
 * speed, not correctness: every executor also checks its runs' records every couple of seconds.
 */
@Injectable()
export class RunControlChannel implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RunControl');
  private readonly listeners = new Set<Listener>();
  /** Subscribing puts a connection in a mode where it serves nothing else: one of its own. */
  private subscriber: Redis | null = null;

  constructor(
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
    private readonly store: StoreConnectionService,
    private readonly instance: InstanceIdentity,
  ) {}

  get channel(): string {
    return this.store.key('control');
  }

  /** `listener` hears the run ids announced by any replica, this one included. */
  onAnnounce(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells this replica at once and the others through the store; false when the store could not be told. */
  async announce(runId: string): Promise<boolean> {
    this.deliver(runId);
    const client = this.store.client;
    if (!client || !this.store.isConnected) return false;
    try {
      await client.publish(this.channel, JSON.stringify({ runId, from: this.instance.id }));
      return true;
    } catch (error) {
      this.logger.warn(`run ${runId}: the other replicas could not be told through the store (${(error as Error).message}); they find out from the database`);
      return false;
    }
  }

  onApplicationBootstrap(): void {
    if (!this.env.kvstoreUrl) return;
    // Offline queue on and no retry limit: the subscription waits for the store however long it
    // is away, and ioredis subscribes again after every reconnect.
    const subscriber = new Redis(this.env.kvstoreUrl, { maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(250 * n, 5000) });
    subscriber.on('error', () => undefined); // the store's state is reported by the store module
    subscriber.on('message', (_channel: string, message: string) => this.receive(message));
    subscriber.subscribe(this.channel).catch((error: Error) => {
      // Cut by shutdown before the store ever answered: nothing to report.
      if (this.subscriber === subscriber) this.logger.warn(`not subscribed to ${this.channel}: ${error.message}; runs cancelled elsewhere are found by the database check`);
    });
    this.subscriber = subscriber;
  }

  onApplicationShutdown(): void {
    const subscriber = this.subscriber;
    this.subscriber = null;
    subscriber?.disconnect();
  }

  private receive(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    const { runId, from } = (parsed ?? {}) as { runId?: unknown; from?: unknown };
    if (typeof runId !== 'string' || !UUID.test(runId) || from === this.instance.id) return; // our own was delivered directly
    this.deliver(runId);
  }

  private deliver(runId: string): void {
    for (const listener of this.listeners) {
      try {
        listener(runId);
      } catch (error) {
        this.logger.warn(`control listener failed for run ${runId}: ${(error as Error).message}`);
      }
    }
  }
}
