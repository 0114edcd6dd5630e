import { randomUUID } from 'node:crypto';
import { Logger, type LoggerService } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/cli/migrate.command.js';
import { readEnvironment } from '../../src/config/environment.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { LABEL_PROJECTION_EVENT_KIND, ProjectionEventsRecorder } from '../../src/tickets/label-projection/projection-events.recorder.js';
import { adminQuery, createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { testEnvironment } from '../support/test-env.js';

/**
 * The label projection's run-event recorder against the real PostgreSQL: one run whose events
 * cannot be stored must not hold back the others, and what waits in memory stays bounded.
 */

let logs: string[] = [];

beforeAll(() => {
  const push = (message: unknown): void => void logs.push(String(message));
  const logger: LoggerService = { log: push, warn: push, error: push, debug: push, verbose: push, fatal: push };
  Logger.overrideLogger(logger);
});

beforeEach(() => {
  logs = [];
});

async function openDatabase(url: string): Promise<DatabaseService> {
  const db = new DatabaseService(testEnvironment({ DATABASE_URL: url }));
  await db.open();
  return db;
}

async function addRun(pool: pg.Pool, id: string = randomUUID()): Promise<string> {
  await pool.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state) VALUES ($1, 'platform-a', 'demo', '1', 'lint', 'failed')`, [id]);
  return id;
}

async function storedTexts(pool: pg.Pool, runId: string): Promise<string[]> {
  const { rows } = await pool.query<{ text: string }>('SELECT text FROM run_events WHERE run_id = $1 AND kind = $2 ORDER BY seq', [runId, LABEL_PROJECTION_EVENT_KIND]);
  return rows.map((r) => r.text);
}

describe('with the database up', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: DatabaseService;
  let recorder: ProjectionEventsRecorder;

  beforeAll(async () => {
    database = await createTestDatabase('projection_events');
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    db = await openDatabase(database.url);
    expect(db.isReady).toBe(true);
  });

  afterAll(async () => {
    await db?.onApplicationShutdown();
    await pool?.end();
    await database?.drop();
  });

  beforeEach(() => {
    recorder = new ProjectionEventsRecorder(db);
  });

  it('stores a text carrying a NUL byte (from a tracker body) and the runs queued after it', async () => {
    const first = await addRun(pool);
    const second = await addRun(pool);
    recorder.record(first, 'label service:done on acme/1 not written: HTTP 500: bad\u0000body');
    recorder.record(second, 'label service:done on acme/2 not written: HTTP 503');
    await recorder.flush();
    expect(await storedTexts(pool, first)).toEqual(['label service:done on acme/1 not written: HTTP 500: bad\uFFFDbody']);
    expect(await storedTexts(pool, second)).toEqual(['label service:done on acme/2 not written: HTTP 503']);
    expect(recorder.pendingRuns).toEqual([]);
  });

  it('clips a very long text', async () => {
    const run = await addRun(pool);
    recorder.record(run, `x${'y'.repeat(100_000)}`);
    await recorder.flush();
    const [text] = await storedTexts(pool, run);
    expect(text!.length).toBeLessThanOrEqual(2_000);
    expect(text!.endsWith('…')).toBe(true);
  });

  it('a run whose events cannot be stored does not block the others, and is dropped after 3 failures with one warning', async () => {
    // PostgreSQL refuses this run id (22P02); it is queued first, so it is first in every pass.
    const poisoned = 'not-a-uuid';
    const [a, b, c] = [await addRun(pool), await addRun(pool), await addRun(pool)];
    recorder.record(poisoned, 'event 1 of a run that cannot be stored');
    recorder.record(poisoned, 'event 2 of a run that cannot be stored');
    recorder.record(a, 'a: first');
    recorder.record(b, 'b: first');
    await recorder.flush();
    expect(await storedTexts(pool, a)).toEqual(['a: first']);
    expect(await storedTexts(pool, b)).toEqual(['b: first']);
    expect(recorder.pendingRuns).toEqual([poisoned]);

    // Later runs keep being written while the poisoned one fails again.
    recorder.record(c, 'c: first');
    await recorder.flush();
    expect(await storedTexts(pool, c)).toEqual(['c: first']);
    expect(recorder.pendingRuns).toEqual([poisoned]);
    expect(logs.filter((l) => l.startsWith('dropped'))).toEqual([]);

    recorder.record(a, 'a: second');
    await recorder.flush(); // third consecutive failure: dropped
    expect(await storedTexts(pool, a)).toEqual(['a: first', 'a: second']);
    expect(recorder.pendingRuns).toEqual([]);
    const drops = logs.filter((l) => l.startsWith('dropped'));
    expect(drops).toHaveLength(1);
    expect(drops[0]).toMatch(/^dropped 2 label-projection event\(s\) of run not-a-uuid: not stored after 3 attempts: .*uuid/);

    // Nothing is retried afterwards.
    await recorder.flush();
    expect(logs.filter((l) => l.startsWith('dropped'))).toHaveLength(1);
  });
});

describe('with the database away', () => {
  it('keeps at most 256 runs x 20 clipped events, drops the oldest runs first and says how many', async () => {
    const database = await createTestDatabase('projection_events_away', { migrated: false });
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const db = await openDatabase(database.url);
    try {
      expect(db.isReady).toBe(false); // migrations pending: nothing can be written
      const recorder = new ProjectionEventsRecorder(db);
      const runs = Array.from({ length: 300 }, () => randomUUID());
      for (const run of runs) {
        for (let i = 0; i < 25; i++) recorder.record(run, `${i}:${'z'.repeat(10_000)}`);
      }
      await recorder.flush();
      expect(recorder.pendingRuns).toHaveLength(256);
      expect(recorder.pendingRuns[0]).toBe(runs[44]);
      expect(logs.filter((l) => /more than 256 runs/.test(l))).toHaveLength(1);

      // The database comes back: what was kept is stored, the loss is reported once.
      await migrate(readEnvironment({ DATABASE_URL: database.url }));
      for (const run of runs) await addRun(pool, run);
      expect((await db.open()).state).toBe('ready');
      await recorder.flush();
      expect(recorder.pendingRuns).toEqual([]);
      const { rows } = await pool.query<{ runs: number; events: number; longest: number }>(
        'SELECT count(DISTINCT run_id)::int AS runs, count(*)::int AS events, max(length(text))::int AS longest FROM run_events WHERE kind = $1',
        [LABEL_PROJECTION_EVENT_KIND]);
      expect(rows[0]).toEqual({ runs: 256, events: 256 * 20, longest: 2_000 });
      expect(await storedTexts(pool, runs[43]!)).toEqual([]);
      expect((await storedTexts(pool, runs[299]!))[0]).toMatch(/^5:z+…$/);
      expect(logs.filter((l) => /^dropped 880 label-projection event\(s\) of 44 run\(s\)/.test(l))).toHaveLength(1);
    } finally {
      await db.onApplicationShutdown();
      await pool.end();
      await database.drop();
    }
  });

  it('failures while the database is gone do not count against a run: nothing is dropped', async () => {
    const database = await createTestDatabase('projection_events_gone');
    const db = await openDatabase(database.url);
    let pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const run = await addRun(pool);
      await pool.end();
      const recorder = new ProjectionEventsRecorder(db);
      await adminQuery(`DROP DATABASE ${database.name} WITH (FORCE)`);
      recorder.record(run, 'written while the database is gone');
      for (let i = 0; i < 5; i++) await recorder.flush();
      expect(db.isReady).toBe(true); // the service has not noticed: every pass really tries
      expect(recorder.pendingRuns).toEqual([run]);
      expect(logs.filter((l) => l.startsWith('dropped'))).toEqual([]);
      expect(logs.filter((l) => /could not be stored/.test(l)).length).toBeGreaterThanOrEqual(5);

      await adminQuery(`CREATE DATABASE ${database.name}`);
      await migrate(readEnvironment({ DATABASE_URL: database.url }));
      pool = new pg.Pool({ connectionString: database.url, max: 1 });
      await addRun(pool, run);
      await recorder.flush();
      expect(await storedTexts(pool, run)).toEqual(['written while the database is gone']);
      expect(recorder.pendingRuns).toEqual([]);
    } finally {
      await db.onApplicationShutdown();
      await pool.end().catch(() => undefined);
      await database.drop();
    }
  });
});
