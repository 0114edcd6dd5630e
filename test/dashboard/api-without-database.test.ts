import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server-process.js';
import { bootApp } from '../support/test-app.js';
import { type TestEnv, createTestEnv } from '../support/test-env.js';

/** The dashboard API while its database does not answer: 503 `{error}` (try again), never Nest's body or a 500. */
let testEnv: TestEnv;
let app: NestFastifyApplication;

beforeAll(async () => {
  const port = await freePort();
  testEnv = createTestEnv('api-no-db', { store: false, databaseUrl: `postgres://postgres@127.0.0.1:${port}/nothing` });
  app = await bootApp(testEnv.env);
});

afterAll(async () => {
  await app?.close();
  testEnv?.remove();
});

describe('the dashboard API without its database', () => {
  it.each([
    ['GET', '/api/runs'], ['GET', '/api/runs/statistics'], ['GET', '/api/runs/statistics/series'], ['GET', '/api/runs/00000000-0000-4000-8000-000000000000'],
    ['GET', '/api/runs/00000000-0000-4000-8000-000000000000/events'], ['GET', '/api/pull-requests'],
    ['GET', '/api/runs/00000000-0000-4000-8000-000000000000/artifacts'], ['GET', '/api/runs/00000000-0000-4000-8000-000000000000/artifacts/report.sarif'],
    ['POST', '/api/runs/00000000-0000-4000-8000-000000000000/cancel'], ['DELETE', '/api/runs?finished=true'],
  ] as const)('%s %s answers 503 {error}', async (method, url) => {
    const res = await app.inject({ method, url });
    expect(res.statusCode).toBe(503);
    const body = res.json<Record<string, unknown>>();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(/database unavailable/);
  });

  it('still refuses bad input first: 400 {error}', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/runs?limit=0' });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json<object>())).toEqual(['error']);
  });
});
