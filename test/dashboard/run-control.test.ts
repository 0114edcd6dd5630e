import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { RunQueueService } from '../../src/runs/run-queue.service.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { LifecycleTrigger } from '../../src/tickets/lifecycle.js';
import { TicketLifecycleService } from '../../src/tickets/ticket-lifecycle.service.js';
import { bootRunApp } from '../runs/support/run-test-app.js';
import { type RunTestOptions, type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';
import { sandboxProcessesOf } from '../runs/support/sandbox-processes.js';
import { RunExecutorService } from '../../src/runs/run-executor.service.js';

/**
 * Run control on one server with its real consumer, capacity queue and in-process sandboxes
 * (PostgreSQL and Redis for real). Cancelling across replicas: run-control-replicas.test.ts.
 */

/** The contract's bound for a running run's sandboxes to be gone after a cancel. */
const CANCEL_WITHIN_MS = 10_000;

interface Bench {
  setup: RunTestSetup;
  app: NestFastifyApplication;
}

type Body = Record<string, unknown> & { run?: Record<string, unknown> & { id: string } };

function bench(options: RunTestOptions): () => Bench {
  const b = {} as Bench;
  beforeAll(async () => {
    b.setup = await createRunTestSetup(options);
    b.app = await bootRunApp(b.setup.env);
  }, 60_000);
  afterAll(async () => {
    await b.app?.close();
    await b.setup?.cleanup();
  });
  return () => b;
}

async function claim(b: Bench, ticket: string, pipeline: string): Promise<string> {
  const outcome = await b.app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket }, pipeline);
  if (outcome.outcome !== 'Claimed') throw new Error(`claim of ${ticket}: ${outcome.outcome}`);
  return outcome.runId;
}

async function post(b: Bench, url: string): Promise<{ status: number; body: Body }> {
  const res = await b.app.inject({ method: 'POST', url });
  return { status: res.statusCode, body: res.json() as Body };
}

async function run(b: Bench, id: string) {
  const { rows } = await b.setup.db.query<{ state: string; error: string | null; started_at: Date | null; admitted_at: Date | null }>(
    'SELECT state, error, started_at, admitted_at FROM runs WHERE id = $1', [id]);
  return rows[0];
}

async function ticket(b: Bench, id: string) {
  const { rows } = await b.setup.db.query<{ state: string; run_id: string }>(`SELECT state, run_id FROM tickets WHERE ticket = $1`, [id]);
  return rows[0];
}

/**
 * The run's own events. The label projection's (`label-projection`: the `solo` repository's
 * host has a token but no issues API, so its label writes fail) can land at any point and are
 * left out: they are not what run control does.
 */
async function events(b: Bench, id: string): Promise<{ kind: string; text: string }[]> {
  return (await b.setup.db.query<{ kind: string; text: string }>(
    `SELECT kind, text FROM run_events WHERE run_id = $1 AND kind <> 'label-projection' ORDER BY seq`, [id])).rows;
}

const running = (id: string) => eventually(() => (sandboxProcessesOf(id).length > 0 ? true : undefined), 20_000, `run ${id} to run its command`);

/** Resolves with how long the run's sandbox processes took to go; fails after the contract's bound (plus the poll's slack). */
async function processesGone(id: string): Promise<number> {
  const from = Date.now();
  await eventually(() => (sandboxProcessesOf(id).length === 0 ? true : undefined), CANCEL_WITHIN_MS, `run ${id}'s processes to be gone`);
  return Date.now() - from;
}

/** `pipeline_service_runs_finished_total` of one pipeline and state, from the app's own /metrics. */
async function finishedCount(b: Bench, pipeline: string, state: string): Promise<number> {
  const text = (await b.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`pipeline_service_runs_finished_total{pipeline="${pipeline}",state="${state}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

const stateOf = (b: Bench, id: string, wanted: string, timeoutMs = 20_000) =>
  eventually(async () => ((await run(b, id))?.state === wanted ? true : undefined), timeoutMs, `run ${id} to be ${wanted}`);

describe('one consumer slot, no capacity limit', () => {
  const b = bench({ queue: { max_parallel_runs: 1 } });

  it('cancels a queued run (its request leaves the queue), then a running one (its commands killed within 10 s)', async () => {
    const cancelledBefore = await finishedCount(b(), 'slow', 'cancelled');
    const first = await claim(b(), 'q1', 'slow');
    await running(first);
    const queued = await claim(b(), 'q2', 'slow');
    const queue = b().app.get(RunQueueService).queue!;
    expect(await (await queue.getJob(queued))?.getState()).toBe('waiting'); // the only slot runs `first`

    const cancelQueued = await post(b(), `/api/runs/${queued}/cancel`);
    expect(cancelQueued.status).toBe(202);
    expect(cancelQueued.body.run).toMatchObject({ id: queued, state: 'cancelled', error: 'cancelled by dashboard', startedAt: null });
    expect(await queue.getJob(queued)).toBeUndefined();
    expect(await ticket(b(), 'q2')).toEqual({ state: 'failed', run_id: queued });

    const cancelRunning = await post(b(), `/api/runs/${first}/cancel`);
    expect(cancelRunning.status).toBe(202);
    expect(cancelRunning.body.run).toMatchObject({ id: first, state: 'cancelled', error: 'cancelled by dashboard' });
    expect(await processesGone(first)).toBeLessThan(CANCEL_WITHIN_MS);
    expect(await ticket(b(), 'q1')).toEqual({ state: 'failed', run_id: first });
    // The executor says what it did and writes no outcome over the cancel.
    await eventually(async () => ((await events(b(), first)).some((e) => e.kind === 'run-cancelled' && /commands killed/.test(e.text)) ? true : undefined),
      10_000, 'the executor to record the stop');
    expect(await run(b(), first)).toMatchObject({ state: 'cancelled', error: 'cancelled by dashboard' });
    const texts = (await events(b(), first)).map((e) => e.text);
    expect(texts).toContain('cancelled by dashboard');
    expect(texts.some((t) => /not recorded|succeeded/.test(t))).toBe(false);
    // Both are counted as cancelled in the metrics (the queued one by the cancel, the running one by its executor), neither otherwise.
    expect(await finishedCount(b(), 'slow', 'cancelled')).toBe(cancelledBefore + 2);
    expect(await finishedCount(b(), 'slow', 'failed')).toBe(0);

    // The slot is free again, and the cancelled request never ran.
    const next = await claim(b(), 'q3', 'instant');
    await stateOf(b(), next, 'succeeded');
    expect((await run(b(), queued))?.started_at).toBeNull();
    expect(await events(b(), queued)).toEqual([{ kind: 'run-cancelled', text: 'cancelled by dashboard' }]);
    expect((await post(b(), `/api/runs/${first}/cancel`)).status).toBe(409);
  }, 90_000);

  it('stops a run whose record was cancelled without any message (the database check alone)', async () => {
    const id = await claim(b(), 'db1', 'slow');
    await running(id);
    // The cancel's transaction only: nothing is published on the store, nobody is told.
    const moved = await b().app.get(TicketLifecycleService).transition(id, LifecycleTrigger.Cancel, 'cancelled by someone who sent no message');
    expect(moved?.to).toBe('failed');
    expect(await processesGone(id)).toBeLessThan(CANCEL_WITHIN_MS);
    await eventually(async () => ((await events(b(), id)).some((e) => e.kind === 'run-cancelled') ? true : undefined), 10_000, 'the stop event');
    expect(await run(b(), id)).toMatchObject({ state: 'cancelled', error: 'cancelled by someone who sent no message' });
  }, 60_000);

  it('stops a run cancelled without a message and deleted before the database check saw it', async () => {
    const id = await claim(b(), 'db2', 'slow');
    await running(id);
    await b().app.get(TicketLifecycleService).transition(id, LifecycleTrigger.Cancel, 'cancelled by someone who sent no message');
    const deleted = await b().app.inject({ method: 'DELETE', url: `/api/runs/${id}` });
    expect(deleted.statusCode).toBe(204);
    expect(await processesGone(id)).toBeLessThan(CANCEL_WITHIN_MS);
  }, 60_000);

  it('a request taken again while this process runs it is skipped, and a cancel still reaches the run', async () => {
    const id = await claim(b(), 'db3', 'slow');
    await running(id);
    // What BullMQ does when the job's lock lapsed (store away, event loop blocked): it hands the request back.
    const again = await b().app.get(RunExecutorService).execute({ runId: id, platform: Platform.GitHub, project: 'solo', ticket: 'db3', pipeline: 'slow' }, false);
    expect(again).toBe('skipped');
    expect((await post(b(), `/api/runs/${id}/cancel`)).status).toBe(202);
    expect(await processesGone(id)).toBeLessThan(CANCEL_WITHIN_MS);
    await stateOf(b(), id, 'cancelled');
  }, 60_000);

  it('retries a cancelled run: a new run claimed on the ticket, which runs; another retry while it is live is 409', async () => {
    const old = await claim(b(), 'r1', 'slow');
    await running(old);
    expect((await post(b(), `/api/runs/${old}/cancel`)).status).toBe(202);
    await processesGone(old);

    const retried = await post(b(), `/api/runs/${old}/retry`);
    expect(retried.status).toBe(202);
    const fresh = retried.body.run!.id;
    expect(fresh).not.toBe(old);
    expect(retried.body.run).toMatchObject({ ticket: 'r1', project: 'solo', platform: 'platform-a', pipeline: 'slow' });
    expect(['queued', 'running']).toContain(retried.body.run!.state);
    await running(fresh);
    expect(await ticket(b(), 'r1')).toEqual({ state: 'in_progress', run_id: fresh });
    expect(await events(b(), old)).toContainEqual({ kind: 'run-retried', text: `retried by dashboard as run ${fresh}` });
    expect(await events(b(), fresh)).toContainEqual({ kind: 'run-retried', text: `retry of run ${old} by dashboard` });

    const twice = await post(b(), `/api/runs/${old}/retry`);
    expect(twice.status).toBe(409);
    expect(Object.keys(twice.body)).toEqual(['error']);
    expect(twice.body.error).toContain(fresh);
    expect((await post(b(), `/api/runs/${fresh}/retry`)).status).toBe(409); // a live run is not retried
    expect((await b().setup.db.query(`SELECT count(*)::int AS n FROM runs WHERE ticket = 'r1'`)).rows[0].n).toBe(2);

    expect((await post(b(), `/api/runs/${fresh}/cancel`)).status).toBe(202);
    await processesGone(fresh);
  }, 90_000);

  it('retries a failed run: the new run runs the pipeline again', async () => {
    const old = await claim(b(), 'f1', 'broken');
    await stateOf(b(), old, 'failed');
    const retried = await post(b(), `/api/runs/${old}/retry`);
    expect(retried.status).toBe(202);
    const fresh = retried.body.run!.id;
    await stateOf(b(), fresh, 'failed');
    expect((await events(b(), fresh)).map((e) => e.text)).toContain('before the failure');
    expect(await ticket(b(), 'f1')).toEqual({ state: 'failed', run_id: fresh });
    expect((await run(b(), old))?.state).toBe('failed');
  }, 60_000);

  it('cancels racing the consumer\'s start and the run\'s end: exactly one outcome stands, ticket and run agree', async () => {
    const tickets = Array.from({ length: 12 }, (_, i) => `race-${i}`);
    const outcomes: { ticket: string; id: string; status: number }[] = [];
    for (const [i, t] of tickets.entries()) {
      const id = await claim(b(), t, i % 2 === 0 ? 'instant' : 'short');
      // From at once (before the consumer takes it) to around its start and end.
      await sleep((i * 97) % 1300);
      outcomes.push({ ticket: t, id, status: (await post(b(), `/api/runs/${id}/cancel`)).status });
    }
    for (const { ticket: t, id, status } of outcomes) {
      expect([202, 409], t).toContain(status);
      await eventually(async () => ((await events(b(), id)).length > 0 && sandboxProcessesOf(id).length === 0 ? true : undefined), 15_000, `${t} to settle`);
      if (status === 202) {
        expect(await run(b(), id), t).toMatchObject({ state: 'cancelled', error: 'cancelled by dashboard' });
        expect((await ticket(b(), t))?.state, t).toBe('failed');
      } else {
        await stateOf(b(), id, 'succeeded');
        expect((await ticket(b(), t))?.state, t).toBe('done');
      }
    }
    // Nothing is left running, and every request left the queue.
    await eventually(async () => ((await b().app.get(RunQueueService).queue!.getJobCounts('waiting', 'active', 'delayed')).active === 0 ? true : undefined), 15_000, 'the queue to drain');
    expect((await b().setup.db.query(`SELECT count(*)::int AS n FROM runs WHERE ticket LIKE 'race-%' AND state IN ('queued', 'running')`)).rows[0].n).toBe(0);
  }, 120_000);

  it('retries a parked run: it is ended (cancelled, attributed), then the ticket is claimed and runs', async () => {
    const parked = randomUUID();
    await b().setup.db.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state, started_at) VALUES ($1, 'platform-a', 'solo', 'p1', 'instant', 'parked', now())`, [parked]);
    await b().setup.db.query(`INSERT INTO tickets (platform, project, ticket, state, pipeline, run_id) VALUES ('platform-a', 'solo', 'p1', 'in_progress', 'instant', $1)`, [parked]);
    const retried = await post(b(), `/api/runs/${parked}/retry`);
    expect(retried.status).toBe(202);
    const fresh = retried.body.run!.id;
    expect(await run(b(), parked)).toMatchObject({ state: 'cancelled', error: 'cancelled by dashboard to retry the ticket' });
    await stateOf(b(), fresh, 'succeeded');
    expect(await ticket(b(), 'p1')).toEqual({ state: 'done', run_id: fresh });
  }, 60_000);
});

describe('capacity for one run at a time', () => {
  const b = bench({ queue: { max_parallel_runs: 2 }, capacity: { cpu: 1, memory: '2Gi' } });

  it('cancels a run waiting for capacity; once the running one is cancelled its FIFO successor is admitted', async () => {
    const first = await claim(b(), 'k1', 'slow');
    await running(first);
    const waiting = await claim(b(), 'k2', 'slow');
    const behind = await claim(b(), 'k3', 'instant');
    // Both were taken by the free slot and wait for capacity (each says so once).
    for (const id of [waiting, behind]) {
      await eventually(async () => ((await events(b(), id)).some((e) => e.kind === 'queued') ? true : undefined), 15_000, `run ${id} to wait for capacity`);
    }

    const cancelled = await post(b(), `/api/runs/${waiting}/cancel`);
    expect(cancelled.status).toBe(202);
    expect(cancelled.body.run).toMatchObject({ state: 'cancelled', startedAt: null });
    expect(await ticket(b(), 'k2')).toEqual({ state: 'failed', run_id: waiting });
    // `first` still holds the capacity: nothing is admitted in the cancelled run's place.
    await sleep(1500);
    expect(await run(b(), behind)).toMatchObject({ state: 'queued', admitted_at: null });

    expect((await post(b(), `/api/runs/${first}/cancel`)).status).toBe(202);
    expect(await processesGone(first)).toBeLessThan(CANCEL_WITHIN_MS);
    await stateOf(b(), behind, 'succeeded');
    expect(await run(b(), waiting)).toMatchObject({ state: 'cancelled', started_at: null, admitted_at: null });
    expect((await events(b(), waiting)).some((e) => e.kind === 'admitted')).toBe(false);
    // Its request left the queue, or was skipped by the consumer that held it.
    const job = await b().app.get(RunQueueService).queue!.getJob(waiting);
    expect(job === undefined || (await job.getState()) === 'completed').toBe(true);
  }, 90_000);
});
