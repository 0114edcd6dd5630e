import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootRunApp } from '../runs/support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';

let setup: RunTestSetup;
let app: NestFastifyApplication;

/** Seeded runs: id → what was written, so each answer is checked against what the database holds. */
interface Seed {
  id: string;
  project: string;
  ticket: string;
  platform: string;
  pipeline: string;
  state: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}
const seeds: Seed[] = [];
// Recent (midnight UTC a week ago): runs finished longer ago than runs.retention_days (90) are
// removed by the housekeeping leader of the app under test.
const T0 = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 7 * 86_400_000;

async function seedRun(i: number, over: Partial<Seed> = {}): Promise<Seed> {
  const created = new Date(T0 + i * 60_000);
  const state = over.state ?? ['succeeded', 'failed', 'cancelled', 'succeeded'][i % 4]!;
  const started = state === 'queued' ? null : new Date(created.getTime() + (i % 3 + 1) * 1000);
  const finished = ['succeeded', 'failed', 'cancelled'].includes(state) && started ? new Date(started.getTime() + (i % 5 + 1) * 10_000) : null;
  const seed: Seed = {
    id: randomUUID(), project: i % 2 === 0 ? 'alpha' : 'beta', ticket: `T-${i}`, platform: i % 3 === 0 ? 'platform-d' : 'platform-a',
    pipeline: i % 2 === 0 ? 'lint' : 'code', state, createdAt: created, startedAt: started, finishedAt: finished, ...over,
  };
  await setup.db.query(
    `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, error, model_calls, input_tokens, output_tokens, cost_usd)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [seed.id, seed.platform, seed.project, seed.ticket, seed.pipeline, seed.state, seed.createdAt, seed.startedAt, seed.finishedAt,
      seed.state === 'failed' ? 'it broke' : null, i, i * 100, i * 10, i * 0.25],
  );
  seeds.push(seed);
  return seed;
}

const get = async (url: string) => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> & { items?: Record<string, unknown>[] } };
};

beforeAll(async () => {
  setup = await createRunTestSetup();
  app = await bootRunApp(setup.env);
  for (let i = 0; i < 60; i += 1) await seedRun(i);
  // One run with sandboxes, steps, a pull request and events.
  const rich = seeds[59]!;
  await setup.db.query(`INSERT INTO run_sandboxes (run_id, repo, path_prefix, state) VALUES ($1, 'web', 'web/', 'destroyed'), ($1, 'api', 'api/', 'destroyed')`, [rich.id]);
  await setup.db.query(`INSERT INTO run_steps (run_id, position, name, state, started_at, finished_at) VALUES
    ($1, 1, 'npm ci', 'succeeded', '2026-01-01T01:00:00Z', '2026-01-01T01:00:05Z'), ($1, 2, 'npm test', 'failed', '2026-01-01T01:00:05Z', NULL)`, [rich.id]);
  await setup.db.query(`INSERT INTO pull_requests (run_id, project, ticket, repo, url, number, state, opened_at) VALUES
    ($1, $2, $3, 'web', 'https://github.com/acme/web/pull/7', 7, 'open', '2026-01-02T00:00:00Z')`, [rich.id, rich.project, rich.ticket]);
  await setup.db.query(`INSERT INTO run_events (run_id, seq, at, kind, sandbox, text)
    SELECT $1, n, '2026-01-01T01:00:00Z'::timestamptz + n * interval '1 ms', 'stdout', 'web', 'line ' || n FROM generate_series(1, 25) n`, [rich.id]);
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

describe('GET /api/runs', () => {
  it('lists newest first with the total, 50 by default', async () => {
    const { status, body } = await get('/api/runs');
    expect(status).toBe(200);
    expect(body.total).toBe(60);
    expect(body.items).toHaveLength(50);
    const expected = [...seeds].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).slice(0, 50).map((s) => s.id);
    expect(body.items!.map((r) => r.id)).toEqual(expected);
  });

  it('pages with limit and offset without overlap', async () => {
    const first = await get('/api/runs?limit=7&offset=0');
    const second = await get('/api/runs?limit=7&offset=7');
    const last = await get('/api/runs?limit=200&offset=55');
    expect(first.body.items!.map((r) => r.id)).toHaveLength(7);
    expect(second.body.items!.map((r) => r.id).some((id) => first.body.items!.some((r) => r.id === id))).toBe(false);
    expect(last.body.items).toHaveLength(5);
    expect(last.body.total).toBe(60);
    expect((await get('/api/runs?offset=1000')).body).toEqual({ items: [], total: 60 });
  });

  it('filters by state, project, both, ticket, pipeline, platform and createdAt window', async () => {
    const check = async (query: string, match: (s: Seed) => boolean) => {
      const { status, body } = await get(`/api/runs?limit=200&${query}`);
      expect(status, query).toBe(200);
      const want = seeds.filter(match).map((s) => s.id).sort();
      expect(body.total, query).toBe(want.length);
      expect(body.items!.map((r) => r.id as string).sort(), query).toEqual(want);
    };
    await check('state=failed', (s) => s.state === 'failed');
    await check('project=alpha', (s) => s.project === 'alpha');
    await check('state=succeeded&project=beta', (s) => s.state === 'succeeded' && s.project === 'beta');
    await check('ticket=T-7', (s) => s.ticket === 'T-7');
    await check('pipeline=code', (s) => s.pipeline === 'code');
    await check('platform=platform-d', (s) => s.platform === 'platform-d');
    const since = new Date(T0 + 10 * 60_000).toISOString();
    const until = new Date(T0 + 20 * 60_000).toISOString();
    await check(`since=${since}&until=${until}`, (s) => s.createdAt.getTime() >= T0 + 600_000 && s.createdAt.getTime() < T0 + 1_200_000);
    await check('project=nobody', () => false);
  });

  it.each([
    ['limit=0', 'limit'], ['limit=201', 'limit'], ['limit=abc', 'limit'], ['limit=1.5', 'limit'], ['offset=-1', 'offset'],
    ['state=bogus', 'state'], ['platform=platform-z', 'platform'], ['since=yesterday', 'since'], ['until=2026-13-01', 'until'],
    ['colour=red', 'colour'], ['limit=1&limit=2', 'limit'],
    // Hostile values the database would refuse (500) if they reached it, and keys the DTO builder drops.
    ['project=a%00b', 'project'], ['ticket=%00', 'ticket'], ['pipeline=x%1b', 'pipeline'],
    ['since=2026-W01-1', 'since'], ['since=2026-01-01T10', 'since'], ['until=2026-01-01T10:00:00', 'until'],
    ['since=2026-01-01T10:00:00,5Z', 'since'], ['since=2026-02-30', 'since'],
    ['__proto__=x', '__proto__'], ['constructor=x', 'constructor'], ['toString=1', 'toString'],
  ])('refuses %s with 400 naming %s', async (query, parameter) => {
    const { status, body } = await get(`/api/runs?${query}`);
    expect(status).toBe(400);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toContain(parameter);
  });
});

describe('totals kept by the run_counts triggers', () => {
  it('stay exact through inserts, concurrent state changes and batch deletes', async () => {
    const counted = async (query: string) => (await get(`/api/runs?limit=1&${query}`)).body.total;
    const rows = async (where: string, params: unknown[] = []) =>
      Number((await setup.db.query(`SELECT count(*) AS n FROM runs ${where}`, params)).rows[0].n);
    const extra: string[] = [];
    for (let i = 0; i < 40; i += 1) extra.push((await seedRun(100 + i, { project: 'gamma', state: 'queued' })).id);
    // Many transitions of one project at once (one pool, ten connections): no deadlock, no drift.
    const pool = new pg.Pool({ connectionString: setup.databaseUrl, max: 10 });
    try {
      await Promise.all(extra.map((id, i) => pool.query(`UPDATE runs SET state = $2 WHERE id = $1`, [id, i % 2 === 0 ? 'running' : 'cancelled'])));
      await Promise.all(extra.slice(0, 20).map((id) => pool.query(`UPDATE runs SET state = 'succeeded' WHERE id = $1 AND state = 'running'`, [id])));
    } finally {
      await pool.end();
    }
    await setup.db.query(`DELETE FROM runs WHERE id = ANY($1::uuid[])`, [extra.slice(30)]);
    for (const [query, where, params] of [
      ['', '', []], ['project=gamma', 'WHERE project = $1', ['gamma']], ['state=running', 'WHERE state = $1', ['running']],
      ['state=cancelled&project=gamma', 'WHERE state = $1 AND project = $2', ['cancelled', 'gamma']],
      ['state=succeeded&project=gamma', 'WHERE state = $1 AND project = $2', ['succeeded', 'gamma']],
    ] as const) {
      expect(await counted(query), query).toBe(await rows(where, [...params]));
    }
    expect(await counted('project=gamma')).toBe(30);
    await setup.db.query(`DELETE FROM runs WHERE project = 'gamma'`);
    seeds.splice(seeds.findIndex((s) => s.project === 'gamma'));
    expect(await counted('project=gamma')).toBe(0);
    expect(await counted('')).toBe(60);
  });
});

describe('GET /api/runs/:id', () => {
  it('answers every contract field of the run', async () => {
    const rich = seeds[59]!;
    const { status, body } = await get(`/api/runs/${rich.id}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      id: rich.id, project: rich.project, ticket: rich.ticket, ticketUrl: null, platform: rich.platform, pipeline: rich.pipeline, state: rich.state,
      createdAt: rich.createdAt.toISOString(), startedAt: rich.startedAt?.toISOString() ?? null, finishedAt: rich.finishedAt?.toISOString() ?? null,
      error: rich.state === 'failed' ? 'it broke' : null,
      sandboxes: expect.arrayContaining([{ repo: 'web', pathPrefix: 'web/', state: 'destroyed' }, { repo: 'api', pathPrefix: 'api/', state: 'destroyed' }]),
      steps: [
        { name: 'npm ci', state: 'succeeded', startedAt: '2026-01-01T01:00:00.000Z', finishedAt: '2026-01-01T01:00:05.000Z' },
        { name: 'npm test', state: 'failed', startedAt: '2026-01-01T01:00:05.000Z', finishedAt: null },
      ],
      usage: { modelCalls: 59, inputTokens: 5900, outputTokens: 590, costUsd: 14.75 },
      pullRequests: [{ repo: 'web', url: 'https://github.com/acme/web/pull/7', number: 7, state: 'open' }],
      target: null,
      criteria: [],
    });
  });

  it('answers 404 {error} for an unknown id and 400 for one that is not a run id', async () => {
    const unknown = randomUUID();
    expect(await get(`/api/runs/${unknown}`)).toEqual({ status: 404, body: { error: `no run ${unknown}` } });
    const bad = await get('/api/runs/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('id');
  });
});

describe('GET /api/runs/:id/events', () => {
  it('pages by seq in order', async () => {
    const rich = seeds[59]!;
    const first = await get(`/api/runs/${rich.id}/events?limit=10`);
    expect(first.status).toBe(200);
    expect(first.body.items!.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(first.body.items![0]).toEqual({ seq: 1, at: '2026-01-01T01:00:00.001Z', kind: 'stdout', sandbox: 'web', text: 'line 1' });
    expect(first.body.nextAfter).toBe(10);
    const raw = await app.inject({ method: 'GET', url: `/api/runs/${rich.id}/events?limit=1` });
    expect(raw.headers['content-type']).toBe('application/json; charset=utf-8');
    const rest = await get(`/api/runs/${rich.id}/events?after=20&limit=10`);
    expect(rest.body.items!.map((e) => e.seq)).toEqual([21, 22, 23, 24, 25]);
    expect(rest.body.nextAfter).toBeNull();
    expect((await get(`/api/runs/${rich.id}/events?after=25`)).body).toEqual({ items: [], nextAfter: null });
    // A run without events exists: an empty page, not a 404.
    expect((await get(`/api/runs/${seeds[0]!.id}/events`)).body).toEqual({ items: [], nextAfter: null });
  });

  it('refuses bad paging and unknown runs', async () => {
    const rich = seeds[59]!;
    for (const query of ['limit=0', 'limit=1001', 'after=-1', 'after=x', 'after=2147483648', 'after=999999999999999']) {
      const { status, body } = await get(`/api/runs/${rich.id}/events?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toContain(query.split('=')[0]);
    }
    const unknown = randomUUID();
    expect(await get(`/api/runs/${unknown}/events`)).toEqual({ status: 404, body: { error: `no run ${unknown}` } });
  });
});

describe('GET /api/runs/statistics', () => {
  it('computes the figures of a known set of runs', async () => {
    const { status, body } = await get('/api/runs/statistics?project=alpha');
    expect(status).toBe(200);
    const alpha = seeds.filter((s) => s.project === 'alpha');
    const count = (pred: (s: Seed) => boolean) => alpha.filter(pred).length;
    expect(body.total).toBe(alpha.length);
    expect(body.byState).toEqual({
      queued: 0, running: 0, parked: 0,
      succeeded: count((s) => s.state === 'succeeded'), failed: count((s) => s.state === 'failed'), cancelled: count((s) => s.state === 'cancelled'),
    });
    expect(body.byPipeline).toEqual({ lint: alpha.length });
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = (sorted.length - 1) / 2;
      return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
    };
    const durations = alpha.filter((s) => s.finishedAt && s.startedAt).map((s) => (s.finishedAt!.getTime() - s.startedAt!.getTime()) / 1000);
    const waits = alpha.filter((s) => s.startedAt).map((s) => (s.startedAt!.getTime() - s.createdAt.getTime()) / 1000);
    expect((body.durationSeconds as { p50: number }).p50).toBeCloseTo(median(durations), 3);
    expect((body.queueWaitSeconds as { p50: number }).p50).toBeCloseTo(median(waits), 3);
    const indexes = alpha.map((s) => seeds.indexOf(s));
    expect(body.usage).toEqual({
      modelCalls: indexes.reduce((a, i) => a + i, 0), inputTokens: indexes.reduce((a, i) => a + i * 100, 0),
      outputTokens: indexes.reduce((a, i) => a + i * 10, 0), costUsd: indexes.reduce((a, i) => a + i * 0.25, 0),
    });
  });

  it('narrows by since and answers zeros and nulls for no runs', async () => {
    const since = new Date(T0 + 50 * 60_000).toISOString();
    expect((await get(`/api/runs/statistics?since=${since}`)).body.total).toBe(10);
    const none = await get('/api/runs/statistics?project=nobody');
    expect(none.body).toMatchObject({ total: 0, byPipeline: {}, durationSeconds: { p50: null, p95: null }, queueWaitSeconds: { p50: null, p95: null } });
    expect((await get('/api/runs/statistics?since=soon')).status).toBe(400);
    expect((await get('/api/runs/statistics?since=2026-W01-1')).status).toBe(400);
    expect((await get('/api/runs/statistics?project=%00')).status).toBe(400);
    expect((await get('/api/pull-requests?project=%00')).status).toBe(400);
    // A date alone is midnight UTC; a date-time with an offset is taken as given.
    expect((await get(`/api/runs/statistics?since=${encodeURIComponent(new Date(T0 + 50 * 60_000).toISOString().replace('Z', '+00:00'))}`)).body.total).toBe(10);
  });
});

describe('GET /api/pull-requests', () => {
  it('lists pull requests with their run', async () => {
    const rich = seeds[59]!;
    const { status, body } = await get('/api/pull-requests');
    expect(status).toBe(200);
    expect(body).toEqual({
      items: [{ runId: rich.id, project: rich.project, ticket: rich.ticket, repo: 'web', url: 'https://github.com/acme/web/pull/7', number: 7, state: 'open', openedAt: '2026-01-02T00:00:00.000Z' }],
      total: 1,
    });
    expect((await get('/api/pull-requests?state=merged')).body).toEqual({ items: [], total: 0 });
    expect((await get('/api/pull-requests?limit=0')).status).toBe(400);
  });
});

describe('a run executed by the engine', () => {
  it('shows its steps and sandboxes as they ended', async () => {
    const outcome = await app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket: 'engine-1' }, 'broken');
    if (outcome.outcome !== 'Claimed') throw new Error(outcome.outcome);
    const run = await eventually(async () => {
      const { body } = await get(`/api/runs/${outcome.runId}`);
      return body.state === 'failed' ? body : undefined;
    }, 20_000, 'the run to fail');
    expect(run.steps).toEqual([
      { name: 'echo before the failure', state: 'succeeded', startedAt: expect.any(String), finishedAt: expect.any(String) },
      { name: 'exit 3', state: 'failed', startedAt: expect.any(String), finishedAt: expect.any(String) },
    ]);
    expect(run.sandboxes).toEqual([{ repo: 'solo-web', pathPrefix: '', state: 'destroyed' }]);
    expect(run.error).toContain('exit 3');
    expect(run.usage).toEqual({ modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  });
});
