import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import type { CycleReport } from '../../../src/polling/poll-cycle.service.js';
import { PollerService } from '../../../src/polling/poller.service.js';
import type { PollingOptions } from '../../../src/polling/polling.options.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';
import type { GitHubStandIn } from '../../stand-ins/github-stand-in.js';
import type { RecordedRequest } from '../../stand-ins/stand-in-server.js';
import { eventually } from '../../support/eventually.js';
import { tempConfig } from '../../support/temp-config.js';
import { bootApp } from '../../support/test-app.js';
import { createTestDatabase } from '../../support/test-database.js';
import { testEnvironment } from '../../support/test-env.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../../support/test-store.js';
import { SECRETS } from '../../webhooks/support/webhook-harness.js';
import { PIPELINES, type PolledTracker, type TrackerKind, startPolledTracker } from './polled-trackers.js';

export { eventually };
export { BROKEN, MAPPED } from './polled-trackers.js';

/** The poller's timings for the in-process tests (the configuration cannot go under 10 s). */
export const FAST_POLLING: Partial<PollingOptions> = {
  intervalMs: 1000, retryBaseMs: 200, fullSweepEveryMs: 3000,
  http: { maxAttempts: 1, timeoutMs: 2000 },
};

/** Every request the poller sends names it and its replica: `pipeline-service poller (<instance id>)`. */
export function isPollerRequest(r: RecordedRequest): boolean {
  return String(r.headers['user-agent'] ?? '').startsWith('pipeline-service poller (');
}

/**
 * Polling test support: a tracker stand-in holding project `shop`'s tickets (see
 * polled-trackers.ts), a fresh migrated database, a key prefix of its own and a `service.yml`
 * with polling on. `boot` starts the real server (AppModule), which takes the `poller` lease like
 * any replica; child processes (two replicas) start from `env`.
 */
export class PollBench {
  private constructor(
    readonly tracker: PolledTracker,
    readonly db: pg.Pool,
    readonly redis: Redis,
    readonly keyPrefix: string,
    readonly env: ServiceEnvironment,
    private readonly teardown: () => Promise<void>,
  ) {}

  static async create(options: { tracker?: TrackerKind; intervalSeconds?: number; queue?: Record<string, number> } = {}): Promise<PollBench> {
    const tracker = await startPolledTracker(options.tracker ?? 'github');
    const database = await createTestDatabase('poll_test');
    const keyPrefix = uniqueKeyPrefix('poll');
    const config = tempConfig('poll-test', {
      queue: {
        key_prefix: keyPrefix, redis_retry_interval_seconds: 1, lease_ttl_seconds: 2, heartbeat_interval_seconds: 1,
        heartbeat_ttl_seconds: 3, stale_scan_interval_seconds: 1, ...options.queue,
      },
      pipelines: PIPELINES,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
      projects: { shop: tracker.project({ enabled: true, interval_seconds: options.intervalSeconds ?? 10 }) },
    });
    const env = testEnvironment({
      SERVICE_CONFIG: config.path, SERVICE_DATA_DIR: config.dir, DATABASE_URL: database.url, KVSTORE_URL: REDIS_URL,
      PLATFORM_A_WEBHOOK_SECRET: SECRETS.platformA,
    });
    const redis = new Redis(REDIS_URL);
    const db = new pg.Pool({ connectionString: database.url, max: 3 });
    return new PollBench(tracker, db, redis, keyPrefix, env, async () => {
      await deleteKeys(redis, keyPrefix).catch(() => undefined);
      redis.disconnect();
      await db.end().catch(() => undefined);
      await database.drop().catch(() => undefined);
      await tracker.stop();
      config.remove();
    });
  }

  /** The GitHub stand-in (GitHub benches only). */
  get gh(): GitHubStandIn {
    return this.tracker.standIn as GitHubStandIn;
  }

  /** The real server with the test timings, once its database and store answer. */
  async boot(polling: Partial<PollingOptions> = FAST_POLLING): Promise<NestFastifyApplication> {
    const app = await bootApp(this.env, { polling });
    const db = app.get(DatabaseService);
    const store = app.get(StoreConnectionService);
    await eventually(async () => ((await db.open()).state === 'ready' && (await store.check()) ? true : undefined), 20_000, 'database and store');
    return app;
  }

  /** Waits for `n` more successful poll cycles of `app`; answers the last one's report. */
  async cycles(app: NestFastifyApplication, n = 1, timeoutMs = 20_000): Promise<CycleReport> {
    const poller = app.get(PollerService);
    let last = poller.lastCycle('shop')?.startedAt.getTime() ?? 0;
    let report: CycleReport | null = null;
    for (let i = 0; i < n; i++) {
      report = await eventually(() => {
        const r = poller.lastCycle('shop');
        return r && r.startedAt.getTime() > last ? r : undefined;
      }, timeoutMs, 'a poll cycle');
      last = report.startedAt.getTime();
    }
    return report as CycleReport;
  }

  /** Requests the poller sent (since `since`, epoch ms). */
  pollerRequests(since = 0): RecordedRequest[] {
    return this.tracker.standIn.requests.filter((r) => r.at >= since && isPollerRequest(r));
  }

  async runs(ticket: string): Promise<{ id: string; state: string; pipeline: string }[]> {
    const { rows } = await this.db.query('SELECT id, state, pipeline FROM runs WHERE project = $1 AND ticket = $2 ORDER BY created_at', ['shop', ticket]);
    return rows;
  }

  async ticketState(ticket: string): Promise<string | null> {
    const { rows } = await this.db.query('SELECT state FROM tickets WHERE project = $1 AND ticket = $2', ['shop', ticket]);
    return (rows[0]?.state as string | undefined) ?? null;
  }

  /** Trigger-log rows of the ticket (written in batches: waits for `count`). */
  async triggerLog(ticket: string, count = 1): Promise<TriggerLogRow[]> {
    return eventually(async () => {
      const { rows } = await this.db.query<TriggerLogRow>(
        'SELECT source, event, delivery_id, outcome, reason, status_code FROM trigger_log WHERE project = $1 AND ticket = $2 ORDER BY id', ['shop', ticket]);
      return rows.length >= count ? rows : undefined;
    }, 15_000, `${count} trigger log row(s) of ${ticket}`);
  }

  /** Waits until the ticket has `count` runs, all ended, and answers them. */
  async settledRuns(ticket: string, count: number, timeoutMs = 30_000) {
    return eventually(async () => {
      const runs = await this.runs(ticket);
      return runs.length >= count && runs.every((r) => ['succeeded', 'failed', 'cancelled'].includes(r.state)) ? runs : undefined;
    }, timeoutMs, `${count} ended run(s) of ticket ${ticket}`);
  }

  async cleanup(): Promise<void> {
    await this.teardown();
  }
}

export interface TriggerLogRow {
  source: string;
  event: string | null;
  delivery_id: string | null;
  outcome: string;
  reason: string | null;
  status_code: number;
}
