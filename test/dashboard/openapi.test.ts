import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PullRequestsReader } from '../../src/dashboard/pull-requests.reader.js';
import { RunEventsReader } from '../../src/dashboard/run-events.reader.js';
import { RunStatisticsSeriesService } from '../../src/dashboard/run-statistics-series.service.js';
import { RunStatisticsService } from '../../src/dashboard/run-statistics.service.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { RunReaderService } from '../../src/runs/resource/run-reader.service.js';
import { RunArtifactsService } from '../../src/runs/run-artifacts.service.js';
import { eventually } from '../support/eventually.js';
import { type Route, routesOf } from '../support/registered-routes.js';
import { type Schema, schemaViolations } from '../support/schema-conformance.js';
import { bootApp } from '../support/test-app.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { type TestEnv, createTestEnv } from '../support/test-env.js';

/**
 * The OpenAPI document of the real application (createServer, enforcement on, no authority):
 * valid, complete against the routes Nest actually registered, showing on every operation the
 * access the guard enforces, and describing the answers the routes really give.
 */

interface Operation {
  security?: Record<string, string[]>[];
  description?: string;
  'x-required-permissions'?: string[];
  'x-public'?: unknown;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

let database: TestDatabase;
let testEnv: TestEnv;
let app: NestFastifyApplication;
let document: Document;
let routes: Route[];

beforeAll(async () => {
  database = await createTestDatabase('openapi');
  testEnv = createTestEnv('openapi', { databaseUrl: database.url, store: false, vars: { SERVICE_AUTH_ENFORCE: 'true' } });
  app = await bootApp(testEnv.env);
  const res = await app.inject({ method: 'GET', url: '/api/docs/openapi.json' });
  expect(res.statusCode).toBe(200);
  document = res.json<Document>();
  routes = routesOf(app);
});

afterAll(async () => {
  await app?.close();
  await database?.drop();
  testEnv?.remove();
});

describe('serving', () => {
  it('serves the document and Swagger UI without a token while enforcement refuses the API', async () => {
    // Enforcement is really on: a guarded route without a token is refused.
    const refused = await app.inject({ method: 'GET', url: '/api/runs' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer /);

    const json = await app.inject({ method: 'GET', url: '/api/docs/openapi.json' });
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);

    const ui = await app.inject({ method: 'GET', url: '/api/docs' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/^text\/html/);
    expect(ui.body).toContain('swagger-ui');
    // The page's script and assets are served too (the UI would be blank without them).
    const init = await app.inject({ method: 'GET', url: '/api/docs/swagger-ui-init.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('/api/runs/{id}');
    const css = await app.inject({ method: 'GET', url: '/api/docs/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    // Only the UI's own files: nothing else of the package's folder, nor beyond it.
    for (const url of ['/api/docs/package.json', '/api/docs/..%2Fpackage.json', '/api/docs/swagger-ui-bundle.js.map']) {
      expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    }
  });
});

describe('the document', () => {
  it('is a valid OpenAPI document whose references all resolve', async () => {
    const validator = new Validator();
    // A copy: resolveRefs dereferences the document it was given in place.
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('walks the routes Fastify really serves (the walk itself works)', () => {
    const fastify = app.getHttpAdapter().getInstance();
    expect(routes.map((r) => r.where)).toEqual(expect.arrayContaining(['RunsController.get', 'HealthController.health', 'WebhookController.platform']));
    for (const route of routes) {
      expect(fastify.hasRoute({ method: route.method.toUpperCase() as 'GET', url: route.nestPath }), `${route.method} ${route.nestPath}`).toBe(true);
    }
  });

  it('has an operation for every registered route, and none for a route that does not exist', () => {
    const registered = routes.map((r) => `${r.method} ${r.docPath}`).sort();
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)).sort();
    expect(documented).toEqual(registered);
  });

  it('shows on every operation exactly the access the guard enforces', () => {
    for (const route of routes) {
      const operation = document.paths[route.docPath]![route.method]!;
      const label = `${route.where} (${route.method} ${route.docPath})`;
      expect(route.declared.kind, label).not.toBe('none');
      if (route.declared.kind === 'permissions') {
        const permissions = route.declared.permissions;
        expect(operation['x-required-permissions'], label).toEqual(permissions);
        expect(operation.security, label).toEqual([{ bearer: [] }]);
        expect(operation.description, label).toMatch(new RegExp(`^Requires: ${permissions.join(' \\+ ').replaceAll('.', '\\.')}\\.`));
        expect(operation.responses['401']?.content?.['application/json']?.schema, label).toEqual({ $ref: '#/components/schemas/UnauthorizedBody' });
        expect(operation.responses['403']?.content?.['application/json']?.schema, label).toEqual({ $ref: '#/components/schemas/PermissionDeniedBody' });
      } else {
        expect(operation.security, label).toEqual([]);
        expect(operation['x-required-permissions'], label).toBeUndefined();
        expect(operation['x-public'], label).toBeUndefined();
        expect(operation.description, label).toMatch(/^Public: no token needed\./);
      }
    }
    // Both kinds are present, so neither branch above is vacuous.
    expect(new Set(routes.map((r) => r.declared.kind))).toEqual(new Set(['permissions', 'public']));
    expect(document.paths['/api/runs/{id}']!.get!['x-required-permissions']).toEqual(['runs.read']);
    expect(document.paths['/health']!.get!.security).toEqual([]);
  });
});

describe('the documented answers are the answers given', () => {
  const runId = randomUUID();

  const schemaOf = (path: string, method: string, status: string): Schema => {
    const schema = document.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`no JSON schema documented for ${status} of ${method} ${path}`);
    return schema;
  };
  const conforms = (path: string, method: string, status: string, value: unknown): void => {
    expect(schemaViolations(document, schemaOf(path, method, status), value), `${status} of ${method} ${path}`).toEqual([]);
  };

  beforeAll(async () => {
    // One run with every part filled in, and a step that has not finished (a null).
    const db = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      await db.query(
        `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, error, model_calls, input_tokens, output_tokens, cost_usd)
         VALUES ($1, 'platform-a', 'alpha', 'T-1', 'code', 'failed', '2026-01-01T00:00:00Z', '2026-01-01T00:00:02Z', '2026-01-01T00:01:00Z', 'it broke', 3, 300, 30, 0.75)`, [runId]);
      await db.query(`INSERT INTO run_sandboxes (run_id, repo, path_prefix, state) VALUES ($1, 'web', 'web/', 'destroyed')`, [runId]);
      await db.query(`INSERT INTO run_steps (run_id, position, name, state, started_at, finished_at) VALUES
        ($1, 1, 'npm ci', 'succeeded', '2026-01-01T00:00:03Z', '2026-01-01T00:00:05Z'), ($1, 2, 'npm test', 'failed', '2026-01-01T00:00:05Z', NULL)`, [runId]);
      await db.query(`INSERT INTO pull_requests (run_id, project, ticket, repo, url, number, state, opened_at)
        VALUES ($1, 'alpha', 'T-1', 'web', 'https://github.com/acme/web/pull/7', 7, 'open', '2026-01-01T00:01:00Z')`, [runId]);
      await db.query(`INSERT INTO run_events (run_id, seq, at, kind, sandbox, text) VALUES ($1, 1, '2026-01-01T00:00:04Z', 'stdout', 'web', 'ok'), ($1, 2, '2026-01-01T00:00:06Z', 'state', NULL, 'failed')`, [runId]);
    } finally {
      await db.end();
    }
    const database_ = app.get(DatabaseService);
    await eventually(async () => ((await database_.open()).state === 'ready' ? true : undefined), 20_000, 'database ready');
  });

  it('the run, its page, its events, the statistics, the pull requests and the artifacts (as the controllers return them)', async () => {
    const run = await app.get(RunReaderService).get(runId);
    expect(run?.steps.at(-1)?.finishedAt).toBeNull();
    expect(run?.pullRequests).toHaveLength(1);
    conforms('/api/runs/{id}', 'get', '200', run);
    conforms('/api/runs', 'get', '200', await app.get(RunReaderService).list({}, 50, 0));
    conforms('/api/runs/{id}/events', 'get', '200', await app.get(RunEventsReader).page(runId, 0, 500));
    conforms('/api/runs/statistics', 'get', '200', await app.get(RunStatisticsService).compute({}));
    conforms('/api/runs/statistics/series', 'get', '200',
      await app.get(RunStatisticsSeriesService).compute({ bucket: 'hour', since: new Date(Date.now() - 86_400_000), until: new Date() }));
    conforms('/api/pull-requests', 'get', '200', await app.get(PullRequestsReader).list({}, 50, 0));
    await app.get(RunArtifactsService).save(runId, 'report.sarif', 'application/sarif+json', '{}');
    conforms('/api/runs/{id}/artifacts', 'get', '200', { items: await app.get(RunArtifactsService).list(runId) });
  });

  it('health, readiness, findings and the 401 body (over HTTP)', async () => {
    for (const url of ['/health', '/health/ready', '/api/config/findings', '/api/runs']) {
      const res = await app.inject({ method: 'GET', url });
      conforms(url, 'get', String(res.statusCode), res.json());
    }
  });

  it('a field the schema does not name is caught (the check can fail)', async () => {
    const run = await app.get(RunReaderService).get(runId);
    const violations = schemaViolations(document, schemaOf('/api/runs/{id}', 'get', '200'), { ...run, surprise: 1, usage: { ...run!.usage, costUsd: 'free' } });
    expect(violations).toEqual(['$.usage.costUsd = "free" is not of type number', '$.surprise is not in the schema']);
  });
});
