import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AGENTS_REFUSED } from '../../src/pipelines/pipeline-catalog.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { RunQueueService } from '../../src/runs/run-queue.service.js';
import { SubsystemsService } from '../../src/store/subsystems.service.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { branchTip } from '../stand-ins/git-repositories.js';
import { bootRunApp } from './support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';

let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  setup = await createRunTestSetup();
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

async function ticketState(ticket: string): Promise<string | undefined> {
  const { rows } = await setup.db.query('SELECT state FROM tickets WHERE project = $1 AND ticket = $2', ['solo', ticket]);
  return rows[0]?.state;
}

async function ended(runId: string) {
  return eventually(async () => {
    const { rows } = await setup.db.query('SELECT * FROM runs WHERE id = $1', [runId]);
    return ['succeeded', 'failed'].includes(rows[0]?.state) ? rows[0] : undefined;
  }, 20_000, `run ${runId} to end`);
}

async function eventsOf(runId: string): Promise<{ seq: number; kind: string; sandbox: string | null; text: string }[]> {
  return (await setup.db.query('SELECT seq, kind, sandbox, text FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows;
}

describe('a claimed ticket runs through the consumer', () => {
  it('reports the queue subsystems up once the store and database answer', async () => {
    const subsystems = app.get(SubsystemsService);
    await eventually(async () => (subsystems.get('queue_consumer').state === 'up' ? true : undefined), 10_000, 'queue_consumer up');
    for (const name of ['housekeeping', 'poller', 'capacity_queue', 'redis'] as const) {
      await eventually(async () => (subsystems.get(name).state === 'up' ? true : undefined), 10_000, `${name} up`);
    }
    // A single replica ends up holding every lease.
    for (const name of ['housekeeping', 'poller', 'capacity_queue'] as const) {
      await eventually(async () => (subsystems.get(name).reason.startsWith('leader') ? true : undefined), 10_000, `${name} leader`);
    }
  });

  it('goes Enqueued → InProgress → Done and stores the output events', async () => {
    const runId = await claim('1', 'short');
    // Claimed as Enqueued; an idle consumer may already have taken it when the state is read.
    expect(['enqueued', 'in_progress']).toContain(await ticketState('1'));
    await eventually(async () => ((await ticketState('1')) === 'in_progress' ? true : undefined), 10_000, 'in_progress');
    const run = await ended(runId);
    expect(run.state).toBe('succeeded');
    expect(await ticketState('1')).toBe('done');
    expect(run.started_at).not.toBeNull();

    const helloId = await claim('2', 'hello');
    const hello = await ended(helloId);
    expect(hello.state).toBe('succeeded');
    const events = await eventsOf(helloId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events).toContainEqual(expect.objectContaining({ kind: 'stdout', sandbox: 'solo-web', text: 'hello from solo-web' }));
    expect(events).toContainEqual(expect.objectContaining({ kind: 'stderr', sandbox: 'solo-web', text: 'warning' }));
    // The label projection's events (the repository's host has no issues API here) may land at
    // any point: the run's own last event is its end.
    expect(events.filter((e) => e.kind !== 'label-projection').at(-1)).toMatchObject({ kind: 'run-succeeded' });
    // Before the first step the sandbox received the tree of the repository's branch main.
    const tip = branchTip(setup.remotes.get('/acme/solo-web')!.bare, 'main')!;
    const workspace = events.filter((e) => e.kind === 'workspace');
    expect(workspace).toEqual([expect.objectContaining({ sandbox: 'solo-web', text: `solo-web: tree of branch main at ${tip.slice(0, 12)}` })]);
    expect(workspace[0]!.seq).toBeLessThan(events.find((e) => e.kind === 'step-started')!.seq);
    const sandboxes = (await setup.db.query('SELECT repo, state FROM run_sandboxes WHERE run_id = $1', [helloId])).rows;
    expect(sandboxes).toEqual([{ repo: 'solo-web', state: 'destroyed' }]);
  });

  it('goes to Failed with the failing command named, and stops at the first failure', async () => {
    const runId = await claim('3', 'broken');
    const run = await ended(runId);
    expect(run.state).toBe('failed');
    expect(run.error).toContain('`exit 3` exited with code 3');
    expect(await ticketState('3')).toBe('failed');
    const texts = (await eventsOf(runId)).map((e) => e.text);
    expect(texts).toContain('before the failure');
    expect(texts).not.toContain('never');
  });

  it('fails a built-in agent pipeline the in-process backend refuses, never pretending success', async () => {
    const runId = await claim('4', 'security-scan');
    const run = await ended(runId);
    expect(run.state).toBe('failed');
    expect(run.error).toBe(AGENTS_REFUSED);
    expect(await ticketState('4')).toBe('failed');
  });

  it('runs a ticket-less request by updating its run record directly', async () => {
    const runId = '00000000-0000-4000-8000-000000000006';
    await setup.db.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state) VALUES ($1, 'platform-a', 'solo', NULL, 'hello', 'queued')`, [runId]);
    await app.get(RunQueueService).enqueue({ runId, platform: Platform.GitHub, project: 'solo', ticket: null, pipeline: 'hello' });
    const run = await ended(runId);
    expect(run.state).toBe('succeeded');
    expect(run.finished_at).not.toBeNull();
  });

  it('publishes run events and ticket transitions on the live run feed', async () => {
    const entries = await setup.redis.xrange(`${setup.keyPrefix}feed:runs`, '-', '+');
    const fields = entries.map(([, f]) => Object.fromEntries(f.flatMap((v, i, a) => (i % 2 === 0 ? [[v, a[i + 1]]] : []))));
    expect(fields.some((f) => f.kind === 'stdout' && f.text === 'hello from solo-web')).toBe(true);
    expect(fields.filter((f) => f.kind === 'state').map((f) => f.text)).toContainEqual(expect.stringContaining('enqueued → in_progress'));
  });
});
