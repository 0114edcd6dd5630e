import { createHmac } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { PIPELINE_QUEUE } from '../../../src/runs/pipeline-request.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';
import { eventually } from '../../support/eventually.js';
import type { Wire } from './deliveries.js';
import { createTestDatabase } from '../../support/test-database.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../../support/test-store.js';
import { tempConfig } from '../../support/temp-config.js';
import { bootApp } from '../../support/test-app.js';
import { testEnvironment } from '../../support/test-env.js';

export { eventually };
export { PG_ADMIN_URL, adminQuery } from '../../support/test-database.js';
export { REDIS_URL };

/**
 * Webhook test support: a fresh migrated database, a unique store key prefix, a temp
 * `service.yml` and the real server (AppModule on Fastify via `createServer`); the shared pieces
 * live in test/support.
 */
/** Webhook secrets every test server is started with (platform D keeps its secret per project). */
export const SECRETS = {
  platformA: 'a-secret-for-hmac',
  platformB: 'b-plain-token',
  platformC: 'c-basic-password',
  jiraProject: 'd-project-secret',
} as const;

/** A test bench: database, store prefix, config file; boots as many servers on them as a test wants. */
export interface WebhookBench {
  databaseName: string;
  databaseUrl: string;
  keyPrefix: string;
  configPath: string;
  redis: Redis;
  db: pg.Pool;
  /** The BullMQ queue the claims push onto (same name and prefix as the server's). */
  queue: Queue;
  /** The server's environment; `overrides` replace variables (e.g. KVSTORE_URL). */
  environment(overrides?: Record<string, string>): ServiceEnvironment;
  /** Deletes every store key under this bench's prefix. */
  deletePrefixKeys(): Promise<number>;
  cleanup(): Promise<void>;
}

export interface BenchOptions {
  /** The `projects:` block of service.yml. */
  projects: Record<string, unknown>;
  /** Command pipelines (`pipelines:`), beside the built-ins. */
  pipelines?: Record<string, { commands: string[]; timeout_seconds?: number }>;
  /** `queue:` keys over the bench's (key prefix, 1 s store re-check). */
  queue?: Record<string, unknown>;
}

export async function createWebhookBench(options: BenchOptions): Promise<WebhookBench> {
  const database = await createTestDatabase('webhooks_test');
  const keyPrefix = uniqueKeyPrefix('webhooks');
  const config = tempConfig('webhooks-test', {
    queue: { key_prefix: keyPrefix, redis_retry_interval_seconds: 1, ...options.queue },
    pipelines: options.pipelines ?? {},
    // Bounded, so runs wait for the capacity leader's admission (see holdBackgroundLeases).
    capacity: { cpu: 64, memory: '256Gi' },
    sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
    projects: options.projects,
  });
  const environment = (overrides: Record<string, string> = {}): ServiceEnvironment => testEnvironment({
    SERVICE_CONFIG: config.path,
    SERVICE_DATA_DIR: config.dir,
    DATABASE_URL: database.url,
    KVSTORE_URL: REDIS_URL,
    PLATFORM_A_WEBHOOK_SECRET: SECRETS.platformA,
    PLATFORM_B_WEBHOOK_TOKEN: SECRETS.platformB,
    PLATFORM_C_WEBHOOK_SECRET: SECRETS.platformC,
    ...overrides,
  });

  const redis = new Redis(REDIS_URL);
  const db = new pg.Pool({ connectionString: database.url, max: 3 });
  const queue = new Queue(PIPELINE_QUEUE, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: `${keyPrefix}bull` });
  await holdBackgroundLeases(redis, keyPrefix);
  const deletePrefixKeys = (): Promise<number> => deleteKeys(redis, keyPrefix);
  return {
    databaseName: database.name, databaseUrl: database.url, keyPrefix, configPath: config.path, redis, db, queue, environment, deletePrefixKeys,
    async cleanup() {
      await queue.close().catch(() => undefined);
      await deletePrefixKeys().catch(() => undefined);
      redis.disconnect();
      await db.end().catch(() => undefined);
      await database.drop().catch(() => undefined);
      config.remove();
    },
  };
}

/**
 * The leader leases (contract: store key `<prefix>leader:<name>`) held by a foreign replica for
 * the whole test, so this process runs no poller, no housekeeping and no capacity admission:
 * a claimed ticket stays exactly as the claim left it (Enqueued, its run queued, its request on
 * the queue) and the assertions see the claim's own effect, not the run engine's later work.
 */
export async function holdBackgroundLeases(redis: Redis, keyPrefix: string): Promise<void> {
  for (const name of ['poller', 'housekeeping', 'capacity_queue']) {
    await redis.set(`${keyPrefix}leader:${name}`, 'another-replica:held-by-the-webhook-tests', 'PX', 3_600_000);
  }
}

/** The real server (not listening), once its database and store answer (or only the database, when `store: false`). */
export async function bootServer(env: ServiceEnvironment, opts: { store?: boolean } = {}): Promise<NestFastifyApplication> {
  const app = await bootApp(env);
  const db = app.get(DatabaseService);
  const store = app.get(StoreConnectionService);
  await eventually(async () => {
    if ((await db.open()).state !== 'ready') return undefined;
    if (opts.store !== false && !(await store.check())) return undefined;
    return true;
  }, 20_000, 'database and store ready');
  return app;
}

export function githubSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export interface TicketRow {
  state: string;
  run_id: string | null;
  pipeline: string | null;
}

export interface RunRow {
  id: string;
  state: string;
  pipeline: string;
  platform: string;
  project: string;
  ticket: string | null;
}

export interface TriggerLogRow {
  platform: string | null;
  event: string | null;
  delivery_id: string | null;
  project: string | null;
  ticket: string | null;
  outcome: string;
  reason: string | null;
  status_code: number;
}

export async function ticketRow(db: pg.Pool, platform: string, project: string, ticket: string): Promise<TicketRow | null> {
  const { rows } = await db.query<TicketRow>(
    'SELECT state, run_id, pipeline FROM tickets WHERE platform = $1 AND project = $2 AND ticket = $3', [platform, project, ticket]);
  return rows[0] ?? null;
}

export async function runsOf(db: pg.Pool, platform: string, project: string, ticket: string): Promise<RunRow[]> {
  const { rows } = await db.query<RunRow>(
    'SELECT id, state, pipeline, platform, project, ticket FROM runs WHERE platform = $1 AND project = $2 AND ticket = $3',
    [platform, project, ticket]);
  return rows;
}

/** Trigger-log rows matching `where` (column = value), waiting up to 5 s for `count` of them (the log is written in batches). */
export async function triggerLogRows(db: pg.Pool, where: Partial<Record<keyof TriggerLogRow, string | number>>, count = 1): Promise<TriggerLogRow[]> {
  const columns = Object.keys(where);
  const sql = `SELECT platform, event, delivery_id, project, ticket, outcome, reason, status_code FROM trigger_log
    ${columns.length > 0 ? `WHERE ${columns.map((c, i) => `${c} = $${i + 1}`).join(' AND ')}` : ''} ORDER BY id`;
  return eventually(async () => {
    const { rows } = await db.query<TriggerLogRow>(sql, Object.values(where));
    return rows.length >= count ? rows : undefined;
  }, 5000, `${count} trigger log row(s) where ${JSON.stringify(where)}`);
}

/** Jobs on the queue under `jobId` (any state): 1 when the run's request was queued, 0 when not. */
export async function jobsFor(queue: Queue, runId: string): Promise<number> {
  return (await queue.getJob(runId)) ? 1 : 0;
}

/** Every job on the queue, in any state. */
export async function allJobCount(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed');
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** What a delivery got back: status, text body and content type. */
export interface WebhookReply {
  status: number;
  body: string;
  contentType: string | undefined;
}

/** POSTs a delivery through `inject` (the real routes, guards and parsers). */
export async function sendWire(app: NestFastifyApplication, wire: Wire): Promise<WebhookReply> {
  const response = await app.inject({ method: 'POST', url: wire.url, headers: wire.headers, payload: wire.payload });
  const type = response.headers['content-type'];
  return { status: response.statusCode, body: response.body, contentType: typeof type === 'string' ? type : undefined };
}
