import { Redis } from 'ioredis';
import pg from 'pg';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { testEnvironment } from '../../support/test-env.js';
import { createTestDatabase } from '../../support/test-database.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../../support/test-store.js';
import { tempConfig } from '../../support/temp-config.js';

export { eventually } from '../../support/eventually.js';
export { PG_ADMIN_URL } from '../../support/test-database.js';
export { REDIS_URL } from '../../support/test-store.js';

/**
 * Ticket-lifecycle test support: a fresh migrated database, a unique store key prefix and a temp
 * `service.yml` holding the test's projects (the shared pieces live in test/support).
 */
export interface TicketTestSetup {
  env: ServiceEnvironment;
  keyPrefix: string;
  redis: Redis;
  db: pg.Pool;
  cleanup(): Promise<void>;
}

export async function createTicketTestSetup(config: { projects: Record<string, unknown>; secrets?: Record<string, string> }): Promise<TicketTestSetup> {
  const database = await createTestDatabase('tickets_test');
  const keyPrefix = uniqueKeyPrefix('tickets');
  const file = tempConfig('tickets-test', {
    queue: { redis_retry_interval_seconds: 1, key_prefix: keyPrefix },
    secrets: config.secrets ?? {},
    sandbox: { backend: 'in-process' },
    projects: config.projects,
  });
  const env = testEnvironment({
    SERVICE_CONFIG: file.path,
    SERVICE_DATA_DIR: file.dir,
    DATABASE_URL: database.url,
    KVSTORE_URL: REDIS_URL,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
  });
  const redis = new Redis(REDIS_URL);
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  return {
    env, keyPrefix, redis, db,
    async cleanup() {
      await deleteKeys(redis, keyPrefix).catch(() => undefined);
      redis.disconnect();
      await db.end();
      await database.drop();
      file.remove();
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
