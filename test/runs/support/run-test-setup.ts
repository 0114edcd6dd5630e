import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { stringify } from 'yaml';
import { migrate } from '../../../src/cli/migrate.command.js';
import { type ServiceEnvironment, readEnvironment } from '../../../src/config/environment.js';

/**
 * Run-engine test support (test/support was not there yet when these tests were written): a fresh
 * migrated PostgreSQL database, a unique store key prefix, a temp `service.yml` with shortened
 * timings, and cleanup that deletes only this prefix's keys (never FLUSHALL: the Redis is shared).
 */
export const PG_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';

/** The spec's timings shortened so crash and recovery windows fit in a test. */
export const SHORT_QUEUE = {
  redis_retry_interval_seconds: 1,
  heartbeat_interval_seconds: 1,
  heartbeat_ttl_seconds: 3,
  stale_scan_interval_seconds: 1,
  reconcile_interval_seconds: 2,
  lease_ttl_seconds: 2,
};

export const TEST_PIPELINES = {
  hello: { commands: ['echo hello from $SERVICE_SANDBOX', 'echo warning >&2'], timeout_seconds: 60 },
  broken: { commands: ['echo before the failure', 'exit 3', 'echo never'], timeout_seconds: 60 },
  short: { commands: ['sleep 1'], timeout_seconds: 60 },
  medium: { commands: ['sleep 3'], timeout_seconds: 60 },
  slow: { commands: ['sleep 20'], timeout_seconds: 300 },
  instant: { commands: ['true'], timeout_seconds: 60 },
  where: { commands: ['echo "repo=$SERVICE_REPO prefix=$SERVICE_PATH_PREFIX dir=$PWD"', 'env | cut -d= -f1 | sort | tr "\\n" " "'], timeout_seconds: 60 },
};

export interface RunTestSetup {
  env: ServiceEnvironment;
  databaseUrl: string;
  keyPrefix: string;
  redis: Redis;
  db: pg.Pool;
  /** Deletes every key under this setup's prefix. */
  flushPrefix(): Promise<number>;
  cleanup(): Promise<void>;
}

export interface RunTestOptions {
  queue?: Record<string, number>;
  capacity?: { cpu: number | string; memory: string };
  projects?: Record<string, unknown>;
}

export async function createRunTestSetup(options: RunTestOptions = {}): Promise<RunTestSetup> {
  const id = randomBytes(5).toString('hex');
  const dbName = `runs_test_${id}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const databaseUrl = new URL(PG_ADMIN_URL);
  databaseUrl.pathname = `/${dbName}`;
  const keyPrefix = `test-runs-${id}:`;
  const dir = mkdtempSync(join(tmpdir(), 'runs-test-'));
  const configPath = join(dir, 'service.yml');
  writeFileSync(configPath, stringify({
    queue: { ...SHORT_QUEUE, ...options.queue, key_prefix: keyPrefix },
    pipelines: TEST_PIPELINES,
    ...(options.capacity ? { capacity: options.capacity } : {}),
    sandbox: { backend: 'in-process', cpu: 1, memory: '2Gi' },
    projects: options.projects ?? {
      solo: { tracker: 'platform-a', repos: [{ name: 'solo-web', platform: 'platform-a', url: 'https://github.com/acme/solo-web' }] },
    },
  }));
  const env = readEnvironment({
    PATH: process.env.PATH,
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICE_CONFIG: configPath,
    SERVICE_DATA_DIR: dir,
    DATABASE_URL: databaseUrl.toString(),
    KVSTORE_URL: REDIS_URL,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
  });
  await migrate(env);
  const redis = new Redis(REDIS_URL);
  const db = new pg.Pool({ connectionString: databaseUrl.toString(), max: 2 });
  const flushPrefix = async () => {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    return deleted;
  };
  return {
    env, databaseUrl: databaseUrl.toString(), keyPrefix, redis, db, flushPrefix,
    async cleanup() {
      await flushPrefix().catch(() => undefined);
      redis.disconnect();
      await db.end();
      const again = new pg.Client({ connectionString: PG_ADMIN_URL });
      await again.connect();
      // A pool that just closed may still be saying goodbye; forcing the drop then would hit
      // that connection with a FATAL nobody listens for. Wait for the sessions to go first.
      for (let waited = 0; waited < 5000; waited += 50) {
        const { rows } = await again.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [dbName]);
        if ((rows[0] as { n: number }).n === 0) break;
        await new Promise((done) => setTimeout(done, 50));
      }
      await again.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await again.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a non-undefined value, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
