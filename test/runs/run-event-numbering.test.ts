import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../../src/database/database.service.js';
import { insertRunEvents } from '../../src/runs/insert-run-events.js';
import { type RunTestSetup, createRunTestSetup } from './support/run-test-setup.js';

describe('run event numbering', () => {
  let setup: RunTestSetup;
  let source: DataSource;

  beforeAll(async () => {
    setup = await createRunTestSetup();
    source = createDataSource(setup.databaseUrl, { embedded: false });
    await source.initialize();
  });

  afterAll(async () => {
    await source?.destroy();
    await setup?.cleanup();
  });

  it('gives concurrent writers distinct, gap-free numbers and loses no event', async () => {
    const runId = randomUUID();
    await setup.db.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state) VALUES ($1, 'platform-a', 'solo', '1', 'lint', 'running')`, [runId]);
    const event = (text: string) => ({ at: new Date(), kind: 'output', sandbox: null, text });
    // A consumer's batches and outside writers (stale-job detector, label projection) at once.
    const batches = Array.from({ length: 20 }, (_, b) => insertRunEvents(source, runId, Array.from({ length: 10 }, (_, i) => event(`batch ${b} line ${i}`))));
    const singles = Array.from({ length: 50 }, (_, i) => insertRunEvents(source, runId, [event(`single ${i}`)]));
    const given = await Promise.all([...batches, ...singles]);

    const rows = (await setup.db.query('SELECT seq, text FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows as { seq: number; text: string }[];
    expect(rows).toHaveLength(250);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(given.flat().sort((a, b) => a - b)).toEqual(rows.map((r) => r.seq));
    // A batch keeps its own order.
    const batch3 = rows.filter((r) => r.text.startsWith('batch 3 ')).map((r) => r.text);
    expect(batch3).toEqual(Array.from({ length: 10 }, (_, i) => `batch 3 line ${i}`));
  });

  it('stores nothing for a run that does not exist', async () => {
    expect(await insertRunEvents(source, randomUUID(), [{ at: new Date(), kind: 'output', sandbox: null, text: 'x' }])).toEqual([]);
  });
});
