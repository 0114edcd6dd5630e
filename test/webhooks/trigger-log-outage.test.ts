import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/cli/migrate.command.js';
import type { DatabaseService } from '../../src/database/database.service.js';
import { TriggerLogService } from '../../src/webhooks/trigger-log.service.js';
import { eventually } from '../support/eventually.js';
import { PG_ADMIN_URL, type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { testEnvironment } from '../support/test-env.js';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy.js';
import { captureLogs, entry, openDatabase, storedRows } from './support/trigger-log-bench.js';

/**
 * The trigger log across database outages, against the real PostgreSQL: a database that is not
 * ready yet, one that goes away while in use (cut at a TCP proxy), and a buffer full of huge rows.
 */
let logs: string[];
const cleanups: (() => Promise<unknown>)[] = [];

beforeEach(() => {
  logs = captureLogs();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function bench(opts: { migrated: boolean; url?: (database: TestDatabase) => string }) {
  const database = await createTestDatabase('trigger_log_outage', { migrated: opts.migrated });
  cleanups.push(() => database.drop());
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  cleanups.push(() => pool.end());
  const db = await openDatabase(opts.url?.(database) ?? database.url);
  cleanups.push(() => db.onApplicationShutdown());
  const service = new TriggerLogService(db);
  cleanups.push(() => service.onApplicationShutdown());
  return { database, pool, db, service };
}

const settle = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe('database not ready', () => {
  it('writes the rows recorded meanwhile as soon as it becomes ready, without a further delivery', async () => {
    const { database, pool, db, service } = await bench({ migrated: false });
    expect(db.status.state).toBe('migrations-pending');
    const id = `pending-${randomUUID()}`;
    for (let i = 0; i < 3; i++) service.record(entry(`${id}-${i}`));
    await settle(500);

    await migrate(testEnvironment({ DATABASE_URL: database.url }));
    expect((await db.open()).state).toBe('ready'); // what the service's 15-s retry does
    const rows = await eventually(async () => {
      const found = await storedRows(pool, id);
      return found.length >= 3 ? found : undefined;
    }, 5_000, 'the three rows');
    expect(rows.map((r) => r.delivery_id)).toEqual([`${id}-0`, `${id}-1`, `${id}-2`]);
  });

  it('bounds the buffer by bytes, dropping the oldest and saying so', async () => {
    const { database, pool, db, service } = await bench({ migrated: false });
    const id = `flood-${randomUUID()}`;
    const big = 'y'.repeat(50_000);
    const total = 3_000; // each clipped to ~5 kB of text: well over the 8 MB bound
    for (let i = 0; i < total; i++) {
      service.record(entry(`${id}-${String(i).padStart(5, '0')}`, { event: big, project: big, ticket: big, platform: big, reason: big }));
    }
    expect(logs.some((line) => /trigger log entries lost: \d+ dropped/.test(line))).toBe(true);

    await migrate(testEnvironment({ DATABASE_URL: database.url }));
    await db.open();
    const last = `${id}-${String(total - 1).padStart(5, '0')}`;
    const rows = await eventually(async () => {
      const found = await storedRows(pool, id);
      return found.at(-1)?.delivery_id === last ? found : undefined;
    }, 10_000, 'the newest row');
    await settle(500);
    const kept = (await storedRows(pool, id)).length;
    expect(kept).toBe(rows.length);
    expect(kept).toBeGreaterThan(1_000);
    expect(kept).toBeLessThan(total);
    expect(rows[0]!.delivery_id).toBe(`${id}-${String(total - kept).padStart(5, '0')}`); // the oldest went
  });

  it('reports the rows it could not write at shutdown', async () => {
    const { service } = await bench({ migrated: false });
    for (let i = 0; i < 7; i++) service.record(entry(`lost-${i}`));
    await service.onApplicationShutdown();
    expect(logs).toContain('7 trigger log entries lost at shutdown: the database is not ready');
  });
});

describe('database gone while in use', () => {
  let proxy: TcpProxy;

  beforeAll(async () => {
    const admin = new URL(PG_ADMIN_URL);
    proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const throughProxy = (database: TestDatabase): string => {
    const url = new URL(database.url);
    url.port = String(proxy.port);
    return url.toString();
  };

  it('keeps the rows, retries with backoff (one warning per outage) and writes them when it is back', async () => {
    const { pool, db, service } = await bench({ migrated: true, url: throughProxy });
    expect(db.status.state).toBe('ready');
    const id = `outage-${randomUUID()}`;
    service.record(entry(`${id}-before`));
    await eventually(async () => ((await storedRows(pool, id)).length === 1 ? true : undefined), 5_000, 'the first row');

    await proxy.cut();
    for (let i = 0; i < 3; i++) service.record(entry(`${id}-${i}`));
    await settle(2_500); // several retries
    expect(await storedRows(pool, id)).toHaveLength(1);
    expect(logs.filter((line) => line.includes('trigger log writes failing'))).toHaveLength(1);

    await proxy.restore();
    const rows = await eventually(async () => {
      const found = await storedRows(pool, id);
      return found.length >= 4 ? found : undefined;
    }, 10_000, 'the rows kept during the outage');
    expect(rows.map((r) => r.delivery_id)).toEqual([`${id}-before`, `${id}-0`, `${id}-1`, `${id}-2`]);
    expect(logs.some((line) => /trigger log writes resumed after \d+ failed attempt/.test(line))).toBe(true);
  });

  it('gives up at the shutdown deadline and says how many rows it could not write', async () => {
    const { service } = await bench({ migrated: true, url: throughProxy });
    await proxy.cut();
    for (let i = 0; i < 5; i++) service.record(entry(`cut-${i}`));
    const started = Date.now();
    await service.onApplicationShutdown();
    expect(Date.now() - started).toBeLessThan(7_000);
    expect(logs).toContain('5 trigger log entries lost at shutdown: not written within 5000 ms');
    await proxy.restore();
  });
});
