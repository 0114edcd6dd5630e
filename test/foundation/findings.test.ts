import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingBody, FindingsBody, HealthBody } from '../support/response-bodies.js';
import { expectFindingsShape, expectHealthShape } from '../support/response-shapes.js';
import { getJson, preflightDone, withApp as withTestApp } from '../support/test-app.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { type TestEnv, createTestEnv } from '../support/test-env.js';

/** GET /api/config/findings through the real AppModule, for the database and the configuration. */
let migrated: TestDatabase;
let unmigrated: TestDatabase;
let testEnv: TestEnv;

const PROBLEMS = {
  queue: { max_parallel_runs: 'many' },
  webhooks: { platform_a_secret: '${FOUNDATION_UNSET_SECRET}' },
  pipelines: { code: { commands: ['echo hijack'] } },
  projects: {
    shop: {
      tracker: 'platform-a',
      repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web' }, { name: 'no-url', platform: 'platform-a' }],
      platform_a_trigger: { default_pipeline: 'deploy', trigger_statuses: ['ready-for-agent'] },
    },
    lost: { repos: [] },
  },
};

beforeAll(async () => {
  [migrated, unmigrated] = await Promise.all([
    createTestDatabase('foundation_findings'),
    createTestDatabase('foundation_unmigrated', { migrated: false }),
  ]);
  testEnv = createTestEnv('foundation-findings', { store: false });
});

afterAll(async () => {
  await migrated?.drop();
  await unmigrated?.drop();
  testEnv?.remove();
});

/** Boots on this file's temp service.yml (no store) with `vars` over it. */
function withApp(vars: Record<string, string>, work: (app: NestFastifyApplication) => Promise<void>): Promise<void> {
  return withTestApp(testEnv.environment(vars), work);
}

describe('pending migrations', () => {
  it('give a blocking database finding naming `npm run migrate`; the server still serves', async () => {
    testEnv.config.write({});
    await withApp({ DATABASE_URL: unmigrated.url }, async (app) => {
      const health = await preflightDone(app);
      expectHealthShape(health);
      expect(health.preflight.status).toBe('fail');
      const failure = health.preflight.failures.find((f) => f.name === 'database');
      expect(failure?.message).toContain('pending');
      expect(failure?.fix_hint).toContain('npm run migrate');

      const { status, body } = await getJson<FindingsBody>(app, '/api/config/findings');
      expect(status).toBe(200);
      expectFindingsShape(body);
      const db = body.findings.filter((f) => f.subsystem === 'database');
      expect(db).toHaveLength(1);
      expect(db[0]?.severity).toBe('blocking');
      expect(db[0]?.reason).toContain('npm run migrate');
      expect(db[0]?.reason).toMatch(/\d+ migration\(s\) pending/);
      expect(body.degraded).toBe(true);
      expect(body.blocking).toBe(1);
      // KVSTORE_URL is unset here: the only other finding is that advisory one.
      expect(body.findings.filter((f) => f.subsystem !== 'database').map((f) => [f.subsystem, f.severity])).toEqual([['redis', 'advisory']]);
    });
  });

  it('a migrated database gives no database finding', async () => {
    testEnv.config.write({});
    await withApp({ DATABASE_URL: migrated.url }, async (app) => {
      await preflightDone(app);
      const { body } = await getJson<FindingsBody>(app, '/api/config/findings');
      expectFindingsShape(body);
      expect(body.findings.filter((f) => f.subsystem === 'database')).toEqual([]);
      expect(body.blocking).toBe(0);
    });
  });
});

describe('a configuration with problems', () => {
  it('boots anyway; each problem is a configuration finding naming project, trigger and field', async () => {
    testEnv.config.write(PROBLEMS);
    await withApp({ DATABASE_URL: migrated.url }, async (app) => {
      const health = await preflightDone(app);
      expectHealthShape(health);
      const configurationFailure = health.preflight.failures.find((f) => f.name === 'configuration');
      expect(configurationFailure?.fix_hint).toContain('/api/config/findings');

      const { status, body } = await getJson<FindingsBody>(app, '/api/config/findings');
      expect(status).toBe(200);
      expectFindingsShape(body);
      const configuration = body.findings.filter((f) => f.subsystem === 'configuration');
      const byField = (field: string): FindingBody | undefined => configuration.find((f) => f.field === field);

      expect(byField('queue.max_parallel_runs')).toMatchObject({ severity: 'blocking', project: null, trigger: null });
      expect(byField('webhooks.platform_a_secret')).toMatchObject({ severity: 'blocking', project: null, trigger: null });
      expect(byField('webhooks.platform_a_secret')?.reason).toContain('FOUNDATION_UNSET_SECRET');
      expect(byField('pipelines.code')).toMatchObject({ severity: 'blocking' });
      expect(byField('projects.shop.repos[1]')).toMatchObject({ severity: 'blocking', project: 'shop', trigger: null });
      // shop-web is loaded but has no auth_secret: its runs could not fetch its tree.
      expect(byField('projects.shop.repos[0].auth_secret')).toMatchObject({ severity: 'blocking', project: 'shop', trigger: null });
      expect(byField('projects.shop.repos[0].auth_secret')?.reason).toContain('repository shop-web has no auth_secret');
      expect(byField('projects.shop.platform_a_trigger.default_pipeline'))
        .toMatchObject({ severity: 'blocking', project: 'shop', trigger: 'platform_a_trigger' });
      expect(byField('projects.lost.tracker')).toMatchObject({ severity: 'blocking', project: 'lost', trigger: null });
      expect(configuration).toHaveLength(7);

      expect(body.degraded).toBe(true);
      expect(body.blocking).toBe(7);
      expect(body.advisory).toBe(1); // KVSTORE_URL unset
    });
  });

  it('advisory-only problems (an unknown key) do not degrade', async () => {
    testEnv.config.write({ colour: 'blue' });
    await withApp({ DATABASE_URL: migrated.url }, async (app) => {
      const health = await preflightDone(app);
      expect(health.preflight.failures.map((f) => f.name)).not.toContain('configuration');
      const { body } = await getJson<FindingsBody>(app, '/api/config/findings');
      expectFindingsShape(body);
      expect(body).toMatchObject({ degraded: false, blocking: 0, advisory: 2 });
      expect(body.findings).toContainEqual({
        subsystem: 'configuration', severity: 'advisory', reason: expect.stringContaining('colour'), project: null, trigger: null, field: 'colour',
      });
    });
  });

  it('an absent bootstrap file is an advisory config-file finding naming SERVICE_CONFIG', async () => {
    await withApp({ DATABASE_URL: migrated.url, SERVICE_CONFIG: `${testEnv.dataDir}/absent.yml` }, async (app) => {
      const health = await preflightDone(app);
      expect(health.preflight.status).toBe('pass');
      const { body } = await getJson<FindingsBody>(app, '/api/config/findings');
      expectFindingsShape(body);
      expect(body.findings).toContainEqual({
        subsystem: 'config-file', severity: 'advisory', reason: expect.stringContaining('absent.yml'), project: null, trigger: null, field: 'SERVICE_CONFIG',
      });
      expect(body.blocking).toBe(0);
    });
  });
});

describe('unauthenticated access', () => {
  it('/health and /api/config/findings answer without a token even with enforcement on', async () => {
    testEnv.config.write({ auth: { authority: 'http://127.0.0.1:9/realms/none', audience: 'x', enforce: true } });
    await withApp({ DATABASE_URL: migrated.url }, async (app) => {
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/config/findings' })).statusCode).toBe(200);
      const { body } = await getJson<HealthBody>(app, '/health');
      expectHealthShape(body);
    });
  });
});
