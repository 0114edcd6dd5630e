import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseService } from '../../src/database/database.service.js';
import { DELETE_BATCH } from '../../src/runs/control/run-deletion.service.js';
import { ProjectionCatchUp } from '../../src/tickets/label-projection/projection-catch-up.js';
import { type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';
import { bootApp } from '../support/test-app.js';
import { testEnvironment } from '../support/test-env.js';

/**
 * Deleting runs, and what run control does without the store: the database alone decides a
 * cancel (it works), a retry needs the store's claim lock and queue (503, nothing changed). The
 * app runs with KVSTORE_URL unset, so no consumer can touch the seeded runs.
 */
let setup: RunTestSetup;
let app: NestFastifyApplication;

type Body = Record<string, unknown> & { run?: Record<string, unknown> };

const call = async (method: 'POST' | 'DELETE', url: string): Promise<{ status: number; body: Body | null }> => {
  const res = await app.inject({ method, url });
  return { status: res.statusCode, body: res.body === '' ? null : (res.json() as Body) };
};

interface SeedOptions {
  state: string;
  ticket?: string | null;
  /** The ticket row's state; the ticket row names the run. None when the run has no ticket. */
  ticketState?: string;
  project?: string;
  createdAt?: Date;
}

async function seed(options: SeedOptions): Promise<string> {
  const id = randomUUID();
  const ticket = options.ticket === undefined ? `T-${id.slice(0, 8)}` : options.ticket;
  const ended = ['succeeded', 'failed', 'cancelled'].includes(options.state);
  await setup.db.query(
    `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, error)
     VALUES ($1, 'platform-a', $2, $3, 'hello', $4, $5, CASE WHEN $4 = 'queued' THEN NULL ELSE now() END, CASE WHEN $6 THEN now() END,
       CASE WHEN $4 = 'failed' THEN 'exit 1' END)`,
    [id, options.project ?? 'solo', ticket, options.state, options.createdAt ?? new Date(), ended],
  );
  if (ticket !== null && options.ticketState) {
    await setup.db.query(
      `INSERT INTO tickets (platform, project, ticket, state, pipeline, run_id) VALUES ('platform-a', $1, $2, $3, 'hello', $4)`,
      [options.project ?? 'solo', ticket, options.ticketState, id]);
  }
  return id;
}

const runOf = async (id: string) =>
  (await setup.db.query<{ state: string; error: string | null; finished_at: Date | null }>('SELECT state, error, finished_at FROM runs WHERE id = $1', [id])).rows[0];
const ticketOf = async (runId: string) =>
  (await setup.db.query<{ state: string }>('SELECT t.state FROM tickets t JOIN runs r ON r.ticket = t.ticket AND r.project = t.project WHERE r.id = $1', [runId])).rows[0]?.state;

beforeAll(async () => {
  setup = await createRunTestSetup();
  app = await bootApp(testEnvironment({ ...setup.env.variables, KVSTORE_URL: undefined }));
  const db = app.get(DatabaseService);
  await eventually(async () => ((await db.open()).state === 'ready' ? true : undefined), 20_000, 'database ready');
  // The start-up catch-up claims unposted failure comments; rows seeded before it read the
  // tickets would race it for the comment record, so the tests begin once it has run.
  await app.get(ProjectionCatchUp).ran;
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

describe('DELETE /api/runs/:id', () => {
  it('deletes an ended run with its events, sandboxes, steps and comment record (204); the ticket and pull request stay', async () => {
    const id = await seed({ state: 'failed', ticketState: 'failed' });
    await setup.db.query(`INSERT INTO run_events (run_id, seq, kind, text) VALUES ($1, 1, 'stdout', 'a'), ($1, 2, 'stdout', 'b')`, [id]);
    await setup.db.query(`INSERT INTO run_sandboxes (run_id, repo, state) VALUES ($1, 'solo-web', 'destroyed')`, [id]);
    await setup.db.query(`INSERT INTO run_steps (run_id, position, name, state) VALUES ($1, 1, 'echo', 'failed')`, [id]);
    await setup.db.query(`INSERT INTO ticket_comments (run_id, kind, platform, project, ticket, state) SELECT id, 'failure', platform, project, ticket, 'posted' FROM runs WHERE id = $1`, [id]);
    await setup.db.query(`INSERT INTO pull_requests (run_id, project, repo, url, number, state) VALUES ($1, 'solo', 'solo-web', 'https://github.com/acme/solo-web/pull/1', 1, 'open')`, [id]);

    expect(await call('DELETE', `/api/runs/${id}`)).toEqual({ status: 204, body: null });
    expect(await runOf(id)).toBeUndefined();
    for (const table of ['run_events', 'run_sandboxes', 'run_steps', 'ticket_comments']) {
      expect((await setup.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE run_id = $1`, [id])).rows[0].n, table).toBe(0);
    }
    expect((await setup.db.query(`SELECT run_id FROM pull_requests WHERE number = 1`)).rows).toEqual([{ run_id: null }]);
    expect((await app.inject({ method: 'GET', url: `/api/runs/${id}` })).statusCode).toBe(404);
    expect(await call('DELETE', `/api/runs/${id}`)).toEqual({ status: 404, body: { error: `no run ${id}` } });
  });

  it.each(['queued', 'running', 'parked'])('refuses a %s run with 409 {error} and keeps it', async (state) => {
    const id = await seed({ state, ticketState: state === 'queued' ? 'enqueued' : 'in_progress' });
    const { status, body } = await call('DELETE', `/api/runs/${id}`);
    expect(status).toBe(409);
    expect(Object.keys(body ?? {})).toEqual(['error']);
    expect(body?.error).toContain(state);
    expect((await runOf(id))?.state).toBe(state);
  });

  it('answers 404 for an unknown run and 400 for an id that is not one', async () => {
    const unknown = randomUUID();
    expect(await call('DELETE', `/api/runs/${unknown}`)).toEqual({ status: 404, body: { error: `no run ${unknown}` } });
    const bad = await call('DELETE', '/api/runs/12345');
    expect(bad.status).toBe(400);
    expect(bad.body?.error).toContain('id');
  });
});

describe('DELETE /api/runs?finished=true', () => {
  it('deletes every ended run, over several batches, and no live one', async () => {
    await setup.db.query('DELETE FROM runs');
    const ended = DELETE_BATCH * 2 + 7;
    await setup.db.query(
      `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, finished_at)
       SELECT gen_random_uuid(), 'platform-a', 'solo', 'bulk-' || n, 'hello', (ARRAY['succeeded', 'failed', 'cancelled'])[1 + n % 3],
         now() - n * interval '1 second', now()
       FROM generate_series(1, $1) n`, [ended]);
    const live = [await seed({ state: 'queued' }), await seed({ state: 'running' }), await seed({ state: 'parked' })];
    await setup.db.query(`INSERT INTO run_events (run_id, seq, kind, text) SELECT id, 1, 'stdout', 'x' FROM runs`);

    expect(await call('DELETE', '/api/runs?finished=true')).toEqual({ status: 200, body: { deleted: ended } });
    const left = (await setup.db.query<{ id: string }>('SELECT id FROM runs ORDER BY id')).rows.map((r) => r.id);
    expect(left).toEqual([...live].sort());
    expect((await setup.db.query('SELECT count(*)::int AS n FROM run_events')).rows[0].n).toBe(live.length);
    expect(await call('DELETE', '/api/runs?finished=true')).toEqual({ status: 200, body: { deleted: 0 } });
  });

  it.each(['', '?finished=false', '?finished=1', '?finished=true&finished=true', '?finished=true&all=yes'])(
    'refuses DELETE /api/runs%s with 400 {error} and deletes nothing', async (query) => {
      const id = await seed({ state: 'succeeded' });
      const { status, body } = await call('DELETE', `/api/runs${query}`);
      expect(status).toBe(400);
      expect(Object.keys(body ?? {})).toEqual(['error']);
      expect(body?.error).toMatch(/finished|all/);
      expect((await runOf(id))?.state).toBe('succeeded');
    });
});

const cancelledCount = async (): Promise<number> => {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith('pipeline_service_runs_finished_total{') && l.includes('state="cancelled"'));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
};

describe('cancel without the store (the database decides)', () => {
  it('cancels a queued ticket run: 202 {run}, attributed to dashboard, ticket Failed, event recorded, counted as finished', async () => {
    const before = await cancelledCount();
    const id = await seed({ state: 'queued', ticketState: 'enqueued' });
    const { status, body } = await call('POST', `/api/runs/${id}/cancel`);
    expect(status).toBe(202);
    expect(Object.keys(body ?? {})).toEqual(['run']);
    expect(body?.run).toMatchObject({ id, state: 'cancelled', error: 'cancelled by dashboard' });
    expect(body?.run?.finishedAt).toEqual(expect.any(String));
    expect(await ticketOf(id)).toBe('failed');
    const events = (await setup.db.query(`SELECT kind, text FROM run_events WHERE run_id = $1`, [id])).rows;
    expect(events).toContainEqual({ kind: 'run-cancelled', text: 'cancelled by dashboard' });
    expect(await cancelledCount()).toBe(before + 1);
  });

  it('takes nothing of who cancelled from the request', async () => {
    const id = await seed({ state: 'running', ticketState: 'in_progress' });
    const res = await app.inject({
      method: 'POST', url: `/api/runs/${id}/cancel`,
      headers: { 'content-type': 'application/json', 'x-user': 'mallory' }, payload: { by: 'mallory', principal: 'mallory' },
    });
    expect(res.statusCode).toBe(202);
    expect((await runOf(id))?.error).toBe('cancelled by dashboard');
  });

  it('cancels a parked run and a run without a ticket', async () => {
    const parked = await seed({ state: 'parked', ticketState: 'in_progress' });
    expect((await call('POST', `/api/runs/${parked}/cancel`)).body?.run).toMatchObject({ state: 'cancelled', error: 'cancelled by dashboard' });
    expect(await ticketOf(parked)).toBe('failed');
    const ticketless = await seed({ state: 'queued', ticket: null });
    expect(await call('POST', `/api/runs/${ticketless}/cancel`)).toMatchObject({ status: 202, body: { run: { state: 'cancelled', ticket: null } } });
  });

  it('refuses a run that has ended with 409 {error}, a second cancel included, and leaves it as it was', async () => {
    const id = await seed({ state: 'running', ticketState: 'in_progress' });
    expect((await call('POST', `/api/runs/${id}/cancel`)).status).toBe(202);
    const again = await call('POST', `/api/runs/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(Object.keys(again.body ?? {})).toEqual(['error']);
    expect(again.body?.error).toContain('cancelled');
    for (const state of ['succeeded', 'failed']) {
      const ended = await seed({ state, ticketState: state === 'succeeded' ? 'done' : 'failed' });
      const before = await runOf(ended);
      expect((await call('POST', `/api/runs/${ended}/cancel`)).status).toBe(409);
      expect(await runOf(ended)).toEqual(before);
      expect(await ticketOf(ended)).toBe(state === 'succeeded' ? 'done' : 'failed');
    }
  });

  it('two cancels at once: exactly one wins', async () => {
    const id = await seed({ state: 'running', ticketState: 'in_progress' });
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', `/api/runs/${id}/cancel`)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409]);
    const events = (await setup.db.query(`SELECT text FROM run_events WHERE run_id = $1 AND kind = 'run-cancelled'`, [id])).rows;
    expect(events).toHaveLength(1);
  });

  it('answers 404 for an unknown run and 400 for an id that is not one', async () => {
    const unknown = randomUUID();
    expect(await call('POST', `/api/runs/${unknown}/cancel`)).toEqual({ status: 404, body: { error: `no run ${unknown}` } });
    expect((await call('POST', '/api/runs/abc/cancel')).status).toBe(400);
  });
});

describe('retry without the store, and runs that cannot be retried', () => {
  it('answers 503 {error} without the store and changes nothing, a parked run included', async () => {
    const failed = await seed({ state: 'failed', ticketState: 'failed' });
    const parked = await seed({ state: 'parked', ticketState: 'in_progress' });
    for (const id of [failed, parked]) {
      const { status, body } = await call('POST', `/api/runs/${id}/retry`);
      expect(status).toBe(503);
      expect(Object.keys(body ?? {})).toEqual(['error']);
      expect(body?.error).toMatch(/store/);
    }
    expect((await runOf(parked))?.state).toBe('parked');
    expect(await ticketOf(parked)).toBe('in_progress');
    expect((await setup.db.query('SELECT count(*)::int AS n FROM runs WHERE ticket = (SELECT ticket FROM runs WHERE id = $1)', [failed])).rows[0].n).toBe(1);
  });

  it.each(['queued', 'running', 'succeeded'])('refuses a %s run with 409 {error}', async (state) => {
    const id = await seed({ state, ticketState: { queued: 'enqueued', running: 'in_progress', succeeded: 'done' }[state] });
    const { status, body } = await call('POST', `/api/runs/${id}/retry`);
    expect(status).toBe(409);
    expect(body?.error).toContain(state);
  });

  it('refuses a run without a ticket with 409 {error} saying so', async () => {
    const id = await seed({ state: 'failed', ticket: null });
    const { status, body } = await call('POST', `/api/runs/${id}/retry`);
    expect(status).toBe(409);
    expect(body?.error).toMatch(/no ticket/);
  });

  it('answers 404 for an unknown run and 400 for an id that is not one', async () => {
    const unknown = randomUUID();
    expect(await call('POST', `/api/runs/${unknown}/retry`)).toEqual({ status: 404, body: { error: `no run ${unknown}` } });
    expect((await call('POST', `/api/runs/${unknown.slice(1)}/retry`)).status).toBe(400);
  });
});
