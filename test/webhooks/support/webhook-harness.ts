import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { stringify } from 'yaml';
import { migrate } from '../../../src/cli/migrate.command.js';
import { type ServiceEnvironment, readEnvironment } from '../../../src/config/environment.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { PIPELINE_QUEUE } from '../../../src/runs/pipeline-request.js';
import { createServer } from '../../../src/server.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';

/**
 * Webhook test support (test/support was not there when these tests were written): a fresh
 * migrated database on the machine's PostgreSQL, a unique store key prefix on the machine's Redis,
 * a temp `service.yml`, the real server (AppModule on Fastify via `createServer`), and cleanup
 * that deletes only this prefix's keys (the Redis is shared: never FLUSHALL/FLUSHDB).
 */
export const PG_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';

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
}

export async function createWebhookBench(options: BenchOptions): Promise<WebhookBench> {
  const id = randomBytes(5).toString('hex');
  const databaseName = `webhooks_test_${id}`;
  await adminQuery(`CREATE DATABASE ${databaseName}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${databaseName}`;
  const databaseUrl = url.toString();
  const keyPrefix = `test-webhooks-${id}:`;
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-test-'));
  const configPath = join(dir, 'service.yml');
  writeFileSync(configPath, stringify({
    queue: { key_prefix: keyPrefix, redis_retry_interval_seconds: 1 },
    pipelines: options.pipelines ?? {},
    // Bounded, so runs wait for the capacity leader's admission (see holdBackgroundLeases).
    capacity: { cpu: 64, memory: '256Gi' },
    sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
    projects: options.projects,
  }));
  const variables = (overrides: Record<string, string> = {}): Record<string, string | undefined> => ({
    PATH: process.env.PATH,
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICE_CONFIG: configPath,
    SERVICE_DATA_DIR: dir,
    DATABASE_URL: databaseUrl,
    KVSTORE_URL: REDIS_URL,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PLATFORM_A_WEBHOOK_SECRET: SECRETS.platformA,
    PLATFORM_B_WEBHOOK_TOKEN: SECRETS.platformB,
    PLATFORM_C_WEBHOOK_SECRET: SECRETS.platformC,
    ...overrides,
  });
  const environment = (overrides?: Record<string, string>): ServiceEnvironment => readEnvironment(variables(overrides));
  await migrate(environment());

  const redis = new Redis(REDIS_URL);
  const db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const queue = new Queue(PIPELINE_QUEUE, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: `${keyPrefix}bull` });
  await holdBackgroundLeases(redis, keyPrefix);

  const deletePrefixKeys = async (): Promise<number> => {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    return deleted;
  };
  return {
    databaseName, databaseUrl, keyPrefix, configPath, redis, db, queue, environment, deletePrefixKeys,
    async cleanup() {
      await queue.close().catch(() => undefined);
      await deletePrefixKeys().catch(() => undefined);
      redis.disconnect();
      await db.end().catch(() => undefined);
      await adminQuery(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The leader leases (contract: store key `<prefix>leader:<name>`) held by a foreign replica for
 * the whole test, so this process runs no poller, no housekeeping and no capacity admission:
 * a claimed ticket stays exactly as the claim left it (Enqueued, its run queued, its request on
 * the queue) and the assertions see the claim's own effect, not the run engine's later work.
 */
async function holdBackgroundLeases(redis: Redis, keyPrefix: string): Promise<void> {
  for (const name of ['poller', 'housekeeping', 'capacity_queue']) {
    await redis.set(`${keyPrefix}leader:${name}`, 'another-replica:held-by-the-webhook-tests', 'PX', 3_600_000);
  }
}

export async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** The real server (not listening), once its database and store answer (or only the database, when `store: false`). */
export async function bootServer(env: ServiceEnvironment, opts: { store?: boolean } = {}): Promise<NestFastifyApplication> {
  const app = await createServer(env);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const db = app.get(DatabaseService);
  const store = app.get(StoreConnectionService);
  await eventually(async () => {
    if ((await db.open()).state !== 'ready') return undefined;
    if (opts.store !== false && !(await store.check())) return undefined;
    return true;
  }, 20_000, 'database and store ready');
  return app;
}

/** Polls `probe` until it returns something other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
