// GET /api/config/schema: the shipped schema, to anyone (an editor has no token), while
// enforcement refuses the rest of the API; and documented as such in the OpenAPI document.
import { readFileSync } from 'node:fs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_FILE } from '../../src/config/config-json-schema.js';
import { bootApp } from '../support/test-app.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { type TestEnv, createTestEnv } from '../support/test-env.js';

let database: TestDatabase;
let testEnv: TestEnv;
let app: NestFastifyApplication;

beforeAll(async () => {
  database = await createTestDatabase('config-schema');
  testEnv = createTestEnv('config-schema', { databaseUrl: database.url, store: false, vars: { SERVICE_AUTH_ENFORCE: 'true' } });
  app = await bootApp(testEnv.env);
});

afterAll(async () => {
  await app?.close();
  await database?.drop();
  testEnv?.remove();
});

describe('GET /api/config/schema', () => {
  it('answers config/service.schema.json without a token while enforcement refuses the API', async () => {
    const refused = await app.inject({ method: 'GET', url: '/api/config' });
    expect(refused.statusCode).toBe(401);

    const res = await app.inject({ method: 'GET', url: '/api/config/schema' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual(JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')));
    expect(res.json()).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', properties: { queue: { properties: { max_parallel_runs: { minimum: 1 } } } } });
  });

  it('is documented in the OpenAPI document as public', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api/docs/openapi.json' })).json<{ paths: Record<string, Record<string, any>> }>();
    const operation = doc.paths['/api/config/schema']?.get;
    expect(operation).toBeDefined();
    expect(operation.security).toEqual([]);
    expect(operation.description).toMatch(/^Public: no token needed\..*JSON Schema/s);
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ type: 'object', additionalProperties: true });
  });
});
