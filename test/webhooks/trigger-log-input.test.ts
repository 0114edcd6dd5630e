import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DatabaseService } from '../../src/database/database.service.js';
import { TriggerLogService } from '../../src/webhooks/trigger-log.service.js';
import { eventually } from '../support/eventually.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { captureLogs, entry, openDatabase, storedRows } from './support/trigger-log-bench.js';

/**
 * Hostile fields against the real trigger_log table: NUL (refused by PostgreSQL in text) and
 * oversized values (refused by the trigger_log_ticket btree) must not stop the rows after them.
 */
let database: TestDatabase;
let pool: pg.Pool;
let db: DatabaseService;
let service: TriggerLogService;
let logs: string[];

beforeAll(async () => {
  database = await createTestDatabase('trigger_log_input');
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

beforeEach(async () => {
  logs = captureLogs();
  db = await openDatabase(database.url);
  expect(db.status.state).toBe('ready');
  service = new TriggerLogService(db);
});

afterEach(async () => {
  await service.onApplicationShutdown();
  await db.onApplicationShutdown();
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

it('stores NUL-bearing and oversized fields cleaned and clipped, and the rows after them too', async () => {
  const id = `input-${randomUUID()}`;
  const huge = 'x'.repeat(2_000_000);
  service.record(entry(`${id}-1`));
  service.record(entry(`${id}-2`, { event: 'iss\u0000ues', ticket: '7\u0000', reason: '\u0000bad\u0000' }));
  service.record(entry(`${id}-3`, { ticket: 'T'.repeat(5_000), project: 'P'.repeat(5_000), reason: huge, event: huge }));
  service.record(entry(`${id}-4`));

  const rows = await eventually(async () => {
    const found = await storedRows(pool, id);
    return found.length >= 4 ? found : undefined;
  }, 5_000, 'all four rows');
  expect(rows.map((r) => r.delivery_id)).toEqual([`${id}-1`, `${id}-2`, `${id}-3`, `${id}-4`]);
  expect(rows[1]).toMatchObject({ event: 'issues', ticket: '7', reason: 'bad' });
  const clipped = rows[2]!;
  expect(clipped.ticket).toBe(`${'T'.repeat(255)}…`);
  expect(clipped.event).toBe(`${'x'.repeat(255)}…`);
  expect(clipped.reason).toBe(`${'x'.repeat(999)}…`);
});

it('never splits a surrogate pair when clipping', async () => {
  const id = `emoji-${randomUUID()}`;
  service.record(entry(id, { ticket: '😀'.repeat(300) }));
  const [row] = await eventually(async () => {
    const found = await storedRows(pool, id);
    return found.length > 0 ? found : undefined;
  }, 5_000, 'the row');
  expect(row!.ticket).toBe(`${'😀'.repeat(127)}…`);
});

it('drops and counts a row the database still refuses, and writes the others of its batch', async () => {
  const id = `refused-${randomUUID()}`;
  service.record(entry(`${id}-1`));
  service.record(entry(`${id}-2`, { statusCode: 2 ** 40 })); // out of integer range: 22003
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  service.record(entry(`${id}-3`, { statusCode: circular as unknown as number })); // the driver cannot even send it
  service.record(entry(`${id}-4`));

  const rows = await eventually(async () => {
    const found = await storedRows(pool, id);
    return found.length >= 2 ? found : undefined;
  }, 5_000, 'the two valid rows');
  expect(rows.map((r) => r.delivery_id)).toEqual([`${id}-1`, `${id}-4`]);
  const loss = await eventually(() => logs.find((line) => line.includes('could not be stored')), 2_000, 'the loss warning');
  expect(loss).toContain('2 could not be stored and were dropped');

  // Not retried: later rows are written straight away, and the refused ones never appear.
  service.record(entry(`${id}-5`));
  await eventually(async () => ((await storedRows(pool, id)).length === 3 ? true : undefined), 5_000, 'the later row');
  expect((await storedRows(pool, id)).map((r) => r.delivery_id)).toEqual([`${id}-1`, `${id}-4`, `${id}-5`]);
});
