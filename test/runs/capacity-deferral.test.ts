import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { PIPELINE_QUEUE } from '../../src/runs/pipeline-request.js';
import { RunQueueService } from '../../src/runs/run-queue.service.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootRunApp } from './support/run-test-app.js';
import { REDIS_URL, type RunTestOptions, type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';

/**
 * A request whose run waits for capacity never keeps its consumer slot: it goes back to the
 * queue (delayed, woken by the leader on admission; straight back at shutdown), so the run ahead
 * of it in FIFO order always finds a slot, and no run is stranded by a restart.
 * (Cases from a review that reproduced each defect; they failed before the fix.)
 */
const setups: RunTestSetup[] = [];
const apps: NestFastifyApplication[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close().catch(() => undefined);
  for (const setup of setups.splice(0)) await setup.cleanup();
});

async function start(options: RunTestOptions): Promise<{ setup: RunTestSetup; app: NestFastifyApplication }> {
  const setup = await createRunTestSetup(options);
  setups.push(setup);
  const app = await bootRunApp(setup.env);
  apps.push(app);
  return { setup, app };
}

async function claim(app: NestFastifyApplication, ticket: string, pipeline: string): Promise<string> {
  const claimed = await app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket }, pipeline);
  if (claimed.outcome !== 'Claimed') throw new Error(`${ticket}: ${claimed.outcome}`);
  return claimed.runId;
}

async function runs(setup: RunTestSetup) {
  const { rows } = await setup.db.query<{ ticket: string; state: string; owner: string | null; started_at: Date | null }>(
    'SELECT ticket, state, owner, started_at FROM runs ORDER BY queue_seq');
  return rows;
}

describe('a run waiting for capacity', () => {
  it('does not hold the only consumer slot: after a store flush the admitted FIFO head still runs, then the rest in order', async () => {
    const { setup, app } = await start({ queue: { max_parallel_runs: 1 }, capacity: { cpu: 1, memory: '2Gi' } });
    await claim(app, 'd1', 'medium');
    await claim(app, 'd2', 'instant');
    await eventually(async () => ((await runs(setup)).find((r) => r.ticket === 'd1')?.state === 'running' ? true : undefined), 10_000, 'd1 running');
    // The store loses d2's request; the reconciler pushes it again, behind d4's fresh one.
    await setup.flushPrefix();
    await claim(app, 'd4', 'instant');
    const done = await eventually(async () => {
      const rows = await runs(setup);
      return rows.every((r) => r.state === 'succeeded') ? rows : undefined;
    }, 30_000, 'every run to succeed');
    const started = done.map((r) => [r.ticket, r.started_at!.getTime()] as const).sort((a, b) => a[1] - b[1]).map(([t]) => t);
    expect(started).toEqual(['d1', 'd2', 'd4']);
  });

  it('goes back to the queue when its consumer shuts down, owned by no one, and another instance runs it', async () => {
    const options: RunTestOptions = { queue: { max_parallel_runs: 2, reconcile_interval_seconds: 600 }, capacity: { cpu: 1, memory: '2Gi' } };
    const { setup, app } = await start(options);
    await claim(app, 's1', 'medium');
    const waiting = await claim(app, 's2', 'instant');
    await eventually(async () => ((await runs(setup)).find((r) => r.ticket === 's1')?.state === 'running' ? true : undefined), 10_000, 's1 running');
    await app.close();
    apps.splice(apps.indexOf(app), 1);

    const queue = new Queue(PIPELINE_QUEUE, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: app.get(RunQueueService).prefix });
    try {
      expect(await (await queue.getJob(waiting))?.getState()).toMatch(/^(waiting|delayed|prioritized)$/);
    } finally {
      await queue.close();
    }
    expect((await runs(setup)).find((r) => r.ticket === 's2')).toMatchObject({ state: 'queued', owner: null });

    // Another instance on the same database and store takes it up (no 10-minute reconcile needed).
    apps.push(await bootRunApp(setup.env));
    await eventually(async () => ((await runs(setup)).find((r) => r.ticket === 's2')?.state === 'succeeded' ? true : undefined), 30_000, 's2 to succeed');
  });
});

describe('a run whose ownership could not be recorded', () => {
  it('is not kept beating: its request is pushed again and the run succeeds', async () => {
    const { setup, app } = await start({});
    // The database refuses the first ownership write (a sequence survives the rolled-back transaction).
    await setup.db.query(`
      CREATE SEQUENCE owner_failures;
      CREATE FUNCTION refuse_first_owner() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.owner IS NOT NULL AND OLD.owner IS NULL AND nextval('owner_failures') = 1 THEN
          RAISE EXCEPTION 'simulated database failure';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_first_owner BEFORE UPDATE ON runs FOR EACH ROW EXECUTE FUNCTION refuse_first_owner();`);
    const runId = await claim(app, 'h1', 'instant');
    await eventually(async () => ((await runs(setup))[0]?.state === 'succeeded' ? true : undefined), 30_000, 'h1 to succeed');
    // The heartbeat stops just after the run's end is written (the consumer's last step), so its
    // key goes a moment later; a heartbeat still beating (every second here) would bring it back.
    const beat = `${setup.keyPrefix}heartbeat:${runId}`;
    await eventually(async () => ((await setup.redis.exists(beat)) === 0 ? true : undefined), 10_000, 'h1 heartbeat gone');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await setup.redis.exists(beat)).toBe(0);
  });
});
