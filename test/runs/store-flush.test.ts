import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { RunQueueService } from '../../src/runs/run-queue.service.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootRunApp } from './support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';

let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  // One run at a time in the consumer, so later requests wait in the store's queue.
  setup = await createRunTestSetup({ queue: { max_parallel_runs: 1 } });
  app = await bootRunApp(setup.env);
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

async function claim(ticket: string, pipeline: string): Promise<string> {
  const outcome = await app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket }, pipeline);
  if (outcome.outcome !== 'Claimed') throw new Error(`claim of ${ticket}: ${outcome.outcome}`);
  return outcome.runId;
}

describe('after the store is flushed', () => {
  it('the reconciler pushes Enqueued tickets again and they run', async () => {
    const busy = await claim('f1', 'medium');
    const waiting = [await claim('f2', 'instant'), await claim('f3', 'instant')];
    await eventually(async () => {
      const { rows } = await setup.db.query(`SELECT state FROM tickets WHERE ticket = 'f1'`);
      return rows[0]?.state === 'in_progress' ? true : undefined;
    }, 10_000, 'the first ticket in progress');

    expect(await setup.flushPrefix()).toBeGreaterThan(0);
    const queue = app.get(RunQueueService);
    for (const runId of waiting) expect(await queue.isQueued(runId)).toBe(false);
    const enqueued = (await setup.db.query(`SELECT ticket FROM tickets WHERE state = 'enqueued' ORDER BY ticket`)).rows.map((r) => r.ticket);
    expect(enqueued).toEqual(['f2', 'f3']);

    const states = await eventually(async () => {
      const { rows } = await setup.db.query(`SELECT ticket, state FROM tickets ORDER BY ticket`);
      return rows.every((r) => r.state === 'done') ? rows : undefined;
    }, 25_000, 'every ticket done');
    expect(states.map((r) => r.ticket)).toEqual(['f1', 'f2', 'f3']);
    const runs = (await setup.db.query('SELECT id, state FROM runs WHERE id = ANY($1::uuid[])', [[busy, ...waiting]])).rows;
    expect(runs.every((r) => r.state === 'succeeded')).toBe(true);
  }, 40_000);
});
