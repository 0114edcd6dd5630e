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
 * Ticket-lifecycle test support (test/support was not there when these tests were written):
 * a fresh migrated PostgreSQL database per test file, a unique store key prefix, a temp
 * `service.yml`, and cleanup that drops the database and deletes only this prefix's keys.
 */
export const PG_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';

export interface TicketTestSetup {
  env: ServiceEnvironment;
  keyPrefix: string;
  redis: Redis;
  db: pg.Pool;
  cleanup(): Promise<void>;
}

export async function createTicketTestSetup(config: { projects: Record<string, unknown>; secrets?: Record<string, string> }): Promise<TicketTestSetup> {
  const id = randomBytes(5).toString('hex');
  const dbName = `tickets_test_${id}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const databaseUrl = new URL(PG_ADMIN_URL);
  databaseUrl.pathname = `/${dbName}`;
  const keyPrefix = `test-tickets-${id}:`;
  const dir = mkdtempSync(join(tmpdir(), 'tickets-test-'));
  const configPath = join(dir, 'service.yml');
  writeFileSync(configPath, stringify({
    queue: { redis_retry_interval_seconds: 1, key_prefix: keyPrefix },
    secrets: config.secrets ?? {},
    sandbox: { backend: 'in-process' },
    projects: config.projects,
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
  return {
    env, keyPrefix, redis, db,
    async cleanup() {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
      redis.disconnect();
      await db.end();
      const again = new pg.Client({ connectionString: PG_ADMIN_URL });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await again.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a non-undefined value, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
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
    await new Promise((done) => setTimeout(done, 50));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
