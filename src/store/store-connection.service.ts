import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { withTimeout } from '../common/with-timeout.js';
import { EmbeddedStoreService } from './embedded-store.service.js';
import { redactUrl } from './redact-url.js';
import { SubsystemsService } from './subsystems.service.js';
import { BackgroundSubsystem } from './subsystem.js';

type StateListener = (connected: boolean) => void;

/**
 * The one Redis connection of the process ("the store", KVSTORE_URL). Built never to give up:
 * ioredis reconnects forever, commands fail fast while disconnected instead of queueing, and
 * the `redis` subsystem is re-checked every `queue.redis_retry_interval_seconds`.
 * Without KVSTORE_URL there is no connection and the queue subsystems are `disabled`.
 */
@Injectable()
export class StoreConnectionService implements OnApplicationShutdown {
  private readonly logger = new Logger('Store');
  readonly client: Redis | null;
  readonly displayUrl: string | null;
  readonly keyPrefix: string;
  private connected = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<StateListener>();

  constructor(
    @Inject(SERVICE_ENVIRONMENT) env: ServiceEnvironment,
    private readonly config: ConfigService,
    private readonly subsystems: SubsystemsService,
    private readonly embedded: EmbeddedStoreService,
  ) {
    this.keyPrefix = config.config.queue.key_prefix;
    if (env.kvstoreUrl === null) {
      this.client = null;
      this.displayUrl = null;
      for (const name of Object.values(BackgroundSubsystem)) {
        subsystems.set(name, 'disabled', 'KVSTORE_URL is not set; restart with it set to enable');
      }
      return;
    }
    this.displayUrl = embedded.isEmbedded ? `embedded (${env.kvstoreUrl})` : redactUrl(env.kvstoreUrl);
    const everyMs = config.config.queue.redis_retry_interval_seconds * 1000;
    // Reconnect at least as often as the subsystem is re-checked, so a store that comes back is
    // reported up within one retry interval even after a long outage.
    this.client = createStoreClient(env.kvstoreUrl, everyMs);
    this.client.on('ready', () => void this.check());
    // 'close', not only 'end': a client that reconnects forever never ends, and until the next
    // periodic check callers would treat a dropped store as up (a claim then failed with 500
    // instead of answering 503 store_unavailable).
    this.client.on('close', () => {
      if (this.connected) this.setConnected(false, 'connection closed');
    });
    this.client.on('end', () => this.setConnected(false, 'connection closed'));
    if (embedded.unavailable) subsystems.set(BackgroundSubsystem.Redis, 'down', embedded.unavailable);
    else subsystems.set(BackgroundSubsystem.Redis, 'degraded', `connecting to ${this.displayUrl}`);
    this.timer = setInterval(() => void this.check(), everyMs);
    this.timer.unref();
  }

  get isConfigured(): boolean {
    return this.client !== null;
  }

  /** Why the store cannot run at all (the embedded store without its binary), else null. */
  get unavailable(): string | null {
    return this.embedded.unavailable;
  }

  get isConnected(): boolean {
    return this.connected;
  }

  /** `svc:` + parts joined by `:`. */
  key(...parts: string[]): string {
    return `${this.keyPrefix}${parts.join(':')}`;
  }

  /** Called with true/false when the connection comes up or goes down. */
  onStateChange(listener: StateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Pings the store (bounded by a timeout) and updates the `redis` subsystem. */
  async check(timeoutMs = 2000): Promise<boolean> {
    if (!this.client) return false;
    const client = this.client;
    try {
      // While a connection attempt is in flight a PING fails at once (no offline queue): at startup
      // that reported a reachable store as unreachable. Let the attempt settle first.
      await withTimeout(attemptSettled(client).then(() => client.ping()), timeoutMs, 'PING timed out');
      this.setConnected(true, `connected to ${this.displayUrl}`);
      return true;
    } catch (error) {
      this.setConnected(false, `cannot reach ${this.displayUrl}: ${(error as Error).message}`);
      return false;
    }
  }

  private setConnected(connected: boolean, reason: string): void {
    if (this.embedded.unavailable) this.subsystems.set(BackgroundSubsystem.Redis, 'down', this.embedded.unavailable);
    else if (this.embedded.isEmbedded) this.subsystems.set(BackgroundSubsystem.Redis, connected ? 'up' : 'degraded', `${reason} (${this.embedded.describe()})`);
    else this.subsystems.set(BackgroundSubsystem.Redis, connected ? 'up' : 'degraded', reason);
    if (connected === this.connected) return;
    this.connected = connected;
    for (const listener of this.listeners) listener(connected);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.client) {
      this.client.disconnect(false);
    }
  }
}

/** Resolves once the client is not in the middle of a connection attempt (ready, or it failed). */
function attemptSettled(client: Redis): Promise<void> {
  if (client.status !== 'connecting' && client.status !== 'connect') return Promise.resolve();
  return new Promise<void>((done) => {
    const settle = () => {
      for (const event of ['ready', 'error', 'close', 'end'] as const) client.off(event, settle);
      done();
    };
    for (const event of ['ready', 'error', 'close', 'end'] as const) client.once(event, settle);
  });
}

/**
 * A store client that fails fast while disconnected and reconnects forever. Connection errors
 * are not logged per retry: the `redis` subsystem reports the state, once per change.
 */
export function createStoreClient(url: string, maxReconnectDelayMs = 5000): Redis {
  const maxDelay = Math.min(5000, maxReconnectDelayMs);
  const client = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
    retryStrategy: (attempt) => Math.min(250 * attempt, maxDelay),
    // Commands issued in the same tick share one write: under load, far fewer syscalls.
    enableAutoPipelining: true,
  });
  client.on('error', () => undefined);
  return client;
}
