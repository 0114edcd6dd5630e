import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseService } from '../../src/database/database.service.js';
import { TriggerLogService } from '../../src/webhooks/trigger-log.service.js';
import { eventually } from '../support/eventually.js';
import { bootApp } from '../support/test-app.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { type TestEnv, createTestEnv } from '../support/test-env.js';
import { REDIS_URL, deleteKeys } from '../support/test-store.js';
import { entry, storedRows } from './support/trigger-log-bench.js';

/** Closing the real server (AppModule, Nest's shutdown hooks in their real order) writes the whole trigger-log buffer. */
let database: TestDatabase;
let testEnv: TestEnv;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase('trigger_log_shutdown');
  testEnv = createTestEnv('trigger-log-shutdown', { databaseUrl: database.url });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  const redis = new Redis(REDIS_URL);
  await deleteKeys(redis, testEnv.keyPrefix).catch(() => undefined);
  redis.disconnect();
  await database?.drop();
  testEnv?.remove();
});

it('writes all 1,800 buffered rows on app.close(), not just one batch', async () => {
  const app: NestFastifyApplication = await bootApp(testEnv.env);
  const db = app.get(DatabaseService);
  await eventually(async () => ((await db.open()).state === 'ready' ? true : undefined), 20_000, 'the database');
  const service = app.get(TriggerLogService);
  const id = `shutdown-${randomUUID()}`;
  for (let i = 0; i < 1_800; i++) service.record(entry(`${id}-${i}`));

  await app.close();
  const rows = await storedRows(pool, id);
  expect(rows).toHaveLength(1_800);
  expect(new Set(rows.map((r) => r.delivery_id)).size).toBe(1_800);
});
