import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from '../auth/support/auth-harness.js';
import { type OpenApiDocument, type Schema, schemaViolations } from '../support/schema-conformance.js';

/**
 * `GET /api/runs/:id/question` on the real AppModule with enforcement on (a real OIDC authority)
 * and PostgreSQL: the whole hand-back question of a parked run (what the dashboard shows above the
 * answer box), its answer once given, null for a run that asked nothing, 404 for no run, and
 * runs.read required. Every answer is held against the documented schema.
 */
let idp: OidcAuthority;
let bench: AuthBench;
let app: NestFastifyApplication;
interface Document extends OpenApiDocument {
  paths: Record<string, Record<string, { 'x-required-permissions'?: string[]; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
}
let document: Document;
let reader: string;

const QUESTION = 'Which currency should the invoice total use?\n\nThe ticket says "EUR" but the fixtures hold USD.';

async function seedRun(state: string): Promise<string> {
  const id = randomUUID();
  await bench.db.query(
    `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, error)
     VALUES ($1, 'platform-a', 'solo', $3, 'code', $2, now(), now(), NULL, 'the agent handed the ticket back (question): Which currency should the invoice total use?')`,
    [id, state, `BILL-${id.slice(0, 8)}`]);
  return id;
}

const get = (url: string, token: string | null = reader) => app.inject({ method: 'GET', url, headers: token === null ? {} : bearer(token) });

function conforms(status: string, value: unknown): void {
  const schema = document.paths['/api/runs/{id}/question']?.['get']?.responses[status]?.content?.['application/json']?.schema;
  expect(schema, `documented ${status}`).toBeDefined();
  expect(schemaViolations(document, schema!, value)).toEqual([]);
}

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('run_question');
  app = await bootApp(bench.environment({
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
  }));
  reader = idp.mint({ claims: { roles: ['reader'] } });
  document = (await app.inject({ method: 'GET', url: '/api/docs/openapi.json' })).json<Document>();
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
  await idp?.stop();
});

describe('GET /api/runs/:id/question', () => {
  it('answers a parked run\'s question whole, open (no answer yet)', async () => {
    const runId = await seedRun('parked');
    await bench.db.query(
      `INSERT INTO run_questions (run_id, platform, project, ticket, kind, question, asked_at) VALUES ($1, 'platform-a', 'solo', 'BILL-12', 'question', $2, '2026-03-01T10:00:00Z')`,
      [runId, QUESTION]);
    const res = await get(`/api/runs/${runId}/question`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      question: {
        kind: 'question', question: QUESTION, askedAt: '2026-03-01T10:00:00.000Z',
        answer: null, answeredBy: null, answerSource: null, answeredAt: null, resumedRunId: null,
      },
    });
    conforms('200', res.json());
  });

  it('answers the answer, who gave it, where and the run it started once answered', async () => {
    const runId = await seedRun('cancelled');
    const resumed = randomUUID();
    await bench.db.query(
      `INSERT INTO run_questions (run_id, platform, project, ticket, kind, question, asked_at, answer, answered_by, answer_source, answered_at, resumed_run_id)
       VALUES ($1, 'platform-a', 'solo', 'BILL-12', 'contradiction', 'Which one?', '2026-03-01T10:00:00Z', 'EUR', 'alice', 'dashboard', '2026-03-01T10:05:00Z', $2)`,
      [runId, resumed]);
    const res = await get(`/api/runs/${runId}/question`);
    expect(res.json()).toEqual({
      question: {
        kind: 'contradiction', question: 'Which one?', askedAt: '2026-03-01T10:00:00.000Z',
        answer: 'EUR', answeredBy: 'alice', answerSource: 'dashboard', answeredAt: '2026-03-01T10:05:00.000Z', resumedRunId: resumed,
      },
    });
    conforms('200', res.json());
  });

  it('answers {question: null} for a run that asked nothing, 404 {error} for no run', async () => {
    const runId = await seedRun('failed');
    const none = await get(`/api/runs/${runId}/question`);
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ question: null });
    conforms('200', none.json());

    const missing = randomUUID();
    const unknown = await get(`/api/runs/${missing}/question`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: `no run ${missing}` });
    conforms('404', unknown.json());
    expect((await get('/api/runs/not-a-uuid/question')).statusCode).toBe(400);
  });

  it('needs runs.read: no token is a 401, a token without it a 403 naming it', async () => {
    const runId = await seedRun('parked');
    expect((await get(`/api/runs/${runId}/question`, null)).statusCode).toBe(401);
    const nobody = idp.mint({ claims: { roles: [] } });
    const refused = await get(`/api/runs/${runId}/question`, nobody);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ missingPermissions: ['runs.read'] });
    expect(document.paths['/api/runs/{id}/question']?.['get']?.['x-required-permissions']).toEqual(['runs.read']);
  });
});
