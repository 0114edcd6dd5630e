import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootRunApp } from '../runs/support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup } from '../runs/support/run-test-setup.js';

let setup: RunTestSetup;
let app: NestFastifyApplication;

// Midnight UTC three days ago: recent, so the housekeeping leader keeps the runs.
const DAY = 86_400_000;
const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;

interface Seed { at: number; project: string; pipeline: string; state: string; waitS: number | null; runS: number | null; cost: number }
const SEEDS: Seed[] = [
  { at: T0 + 1 * HOUR, project: 'alpha', pipeline: 'lint', state: 'succeeded', waitS: 2, runS: 10, cost: 0.5 },
  { at: T0 + 1.5 * HOUR, project: 'alpha', pipeline: 'code', state: 'failed', waitS: 4, runS: 20, cost: 1.25 },
  { at: T0 + 5 * HOUR, project: 'beta', pipeline: 'lint', state: 'queued', waitS: null, runS: null, cost: 0 },
  { at: T0 + DAY + 2 * HOUR, project: 'alpha', pipeline: 'code', state: 'succeeded', waitS: 1, runS: 30, cost: 2 },
];

const get = async (url: string) => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> & { series: Record<string, unknown>[]; error?: string } };
};
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  setup = await createRunTestSetup();
  app = await bootRunApp(setup.env);
  for (const s of SEEDS) {
    const started = s.waitS === null ? null : new Date(s.at + s.waitS * 1000);
    const finished = started && s.runS !== null ? new Date(started.getTime() + s.runS * 1000) : null;
    await setup.db.query(
      `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, model_calls, input_tokens, output_tokens, cost_usd)
       VALUES ($1, 'platform-a', $2, $3, $4, $5, $6, $7, $8, 1, 100, 10, $9)`,
      [randomUUID(), s.project, String(s.at), s.pipeline, s.state, new Date(s.at), started, finished, s.cost],
    );
  }
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

describe('GET /api/runs/statistics/series', () => {
  it('answers every day of the range with the figures of the runs created in it', async () => {
    const { status, body } = await get(`/api/runs/statistics/series?bucket=day&since=${iso(T0)}&until=${iso(T0 + 3 * DAY)}`);
    expect(status).toBe(200);
    expect(body.bucket).toBe('day');
    expect(body.since).toBe(iso(T0));
    expect(body.until).toBe(iso(T0 + 3 * DAY));
    expect(body.series.map((b) => b.start)).toEqual([iso(T0), iso(T0 + DAY), iso(T0 + 2 * DAY)]);
    expect(body.series.map((b) => b.total)).toEqual([3, 1, 0]);
    const [first, second, empty] = body.series;
    expect(first).toMatchObject({
      byState: { queued: 1, running: 0, parked: 0, succeeded: 1, failed: 1, cancelled: 0 },
      byPipeline: { lint: 2, code: 1 },
      usage: { modelCalls: 3, inputTokens: 300, outputTokens: 30, costUsd: 1.75 },
    });
    // Two finished runs of 10 s and 20 s: p50 15 s, p95 19.5 s (linear interpolation); waits 2 s and 4 s.
    expect(first!.durationSeconds).toEqual({ p50: 15, p95: 19.5 });
    expect(first!.queueWaitSeconds).toEqual({ p50: 3, p95: 3.9 });
    expect(second).toMatchObject({ byPipeline: { code: 1 }, durationSeconds: { p50: 30, p95: 30 }, queueWaitSeconds: { p50: 1, p95: 1 } });
    expect(empty).toEqual({
      start: iso(T0 + 2 * DAY), total: 0, byState: { queued: 0, running: 0, parked: 0, succeeded: 0, failed: 0, cancelled: 0 }, byPipeline: {},
      durationSeconds: { p50: null, p95: null }, queueWaitSeconds: { p50: null, p95: null }, usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
    });
  });

  it('buckets by UTC hour, aligned to the hour, and narrows to a project', async () => {
    const hours = await get(`/api/runs/statistics/series?bucket=hour&since=${iso(T0)}&until=${iso(T0 + 6 * HOUR)}`);
    expect(hours.body.series.map((b) => b.total)).toEqual([0, 2, 0, 0, 0, 1]);
    // since at 01:40 → the first bucket starts at 01:00 but counts only runs from 01:40 on.
    const unaligned = await get(`/api/runs/statistics/series?bucket=hour&since=${iso(T0 + 1.66 * HOUR)}&until=${iso(T0 + 3 * HOUR)}`);
    expect(unaligned.body.series.map((b) => [b.start, b.total])).toEqual([[iso(T0 + HOUR), 0], [iso(T0 + 2 * HOUR), 0]]);
    const alpha = await get(`/api/runs/statistics/series?bucket=day&since=${iso(T0)}&until=${iso(T0 + 3 * DAY)}&project=alpha`);
    expect(alpha.body.series.map((b) => b.total)).toEqual([2, 1, 0]);
  });

  it('defaults to the last 30 days by day, ending now', async () => {
    const { status, body } = await get('/api/runs/statistics/series');
    expect(status).toBe(200);
    expect(body.bucket).toBe('day');
    expect(Date.parse(body.until as string) - Date.parse(body.since as string)).toBe(30 * DAY);
    expect(body.series.reduce((n, b) => n + (b.total as number), 0)).toBe(SEEDS.length);
  });

  it('refuses a bad parameter with 400 naming it', async () => {
    for (const [query, named] of [
      ['bucket=week', 'bucket'], ['since=soon', 'since'], ['until=2026-13-01', 'until'], ['project=%00', 'project'], ['bogus=1', 'bogus'],
      [`since=${iso(T0 + DAY)}&until=${iso(T0)}`, 'since'],
      [`bucket=hour&since=${iso(T0 - 60 * DAY)}&until=${iso(T0)}`, 'since'],
    ] as const) {
      const { status, body } = await get(`/api/runs/statistics/series?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toContain(named);
    }
  });
});
