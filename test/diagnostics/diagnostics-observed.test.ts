import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { bootApp, preflightDone } from '../support/test-app.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { createTestEnv, type TestEnv } from '../support/test-env.js';

/**
 * Diagnostics on a server whose sandbox backend is the container engine (this machine's Docker)
 * and whose project starts agent pipelines, so that the startup check calls the model: the
 * snapshot shows that call as the model endpoint's last success without any probe, and the
 * sandbox probe asks the engine its version. Enforcement off: every caller is the anonymous admin.
 */
const KEY = 'sk-observed-model-key-0123456789';
let model: ModelStandIn;
let db: TestDatabase;
let env: TestEnv;
let app: NestFastifyApplication;

beforeAll(async () => {
  model = await ModelStandIn.start({ apiKey: KEY });
  db = await createTestDatabase('diagnostics_observed');
  env = createTestEnv('diagnostics-observed', {
    databaseUrl: db.url,
    config: {
      sandbox: { backend: 'container-engine' },
      agent: { provider: 'openai', model: 'stand-in-model', base_url: model.baseUrl, api_key: KEY },
      projects: {
        shop: {
          tracker: 'platform-a',
          platform_a_trigger: { trigger_statuses: ['ready'], default_pipeline: 'code' },
          repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: 'ghp_unused_in_this_test_0123' }],
        },
      },
    },
  });
  app = await bootApp(env.env);
  await preflightDone(app);
}, 90_000);

afterAll(async () => {
  await app?.close();
  await db?.drop().catch(() => undefined);
  env?.remove();
  await model?.close();
});

interface Connection { name: string; target: string | null; lastOk: string | null; lastError: unknown }
const snapshot = async () => (await app.inject({ method: 'GET', url: '/api/diagnostics/connections' })).json<{ connections: Connection[] }>();

describe('diagnostics fed by normal work', () => {
  it('shows the startup model call as the endpoint\'s last success, with no probe made', async () => {
    expect(model.modelCalls().length).toBeGreaterThan(0);
    const entry = (await snapshot()).connections.find((c) => c.name === 'model:openai');
    expect(entry).toMatchObject({ target: model.baseUrl, lastOk: expect.any(String), lastError: null });
  });
});

describe('the container-engine sandbox', () => {
  it('lists the engine socket and probes its version', async () => {
    expect((await snapshot()).connections.find((c) => c.name === 'sandbox')?.target).toMatch(/^(unix|tcp|http)s?:\/\//);
    const res = await app.inject({ method: 'POST', url: '/api/diagnostics/probe', payload: { name: 'sandbox' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'sandbox', ok: true, error: null });
  });
});
