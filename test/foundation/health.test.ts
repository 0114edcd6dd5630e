import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import type { FindingsBody, HealthBody } from '../support/response-bodies.js';
import { SUBSYSTEM_NAMES, expectFindingsShape, expectHealthShape, subsystem } from '../support/response-shapes.js';
import { freePort } from '../support/server-process.js';
import { getJson, preflightDone, withApp } from '../support/test-app.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { type TestEnv, createTestEnv } from '../support/test-env.js';
import { REDIS_URL, deleteKeys } from '../support/test-store.js';

/**
 * /health, /health/ready and the redis subsystem against the machine's PostgreSQL and Redis,
 * through the real AppModule.
 */
let database: TestDatabase;
let testEnv: TestEnv;
let redis: Redis;

beforeAll(async () => {
  database = await createTestDatabase('foundation_health');
  testEnv = createTestEnv('foundation-health', {
    databaseUrl: database.url,
    config: { queue: { lease_ttl_seconds: 2, heartbeat_interval_seconds: 1 } },
  });
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  if (redis) {
    await deleteKeys(redis, testEnv.keyPrefix).catch(() => undefined);
    redis.disconnect();
  }
  await database?.drop();
  testEnv?.remove();
});

describe('with the database and the store', () => {
  it('/health has the spec shape; everything comes up; /health/ready turns 200 ready', async () => {
    await withApp(testEnv.env, async (app) => {
      const first = await getJson<HealthBody>(app, '/health');
      expect(first.status).toBe(200);
      expectHealthShape(first.body);

      const done = await preflightDone(app);
      expectHealthShape(done);
      expect(done.preflight, JSON.stringify(done.preflight)).toMatchObject({ status: 'pass', failed: 0, failures: [] });
      expect(done.preflight.passed).toBeGreaterThanOrEqual(4); // configuration, database, redis, sandbox-backend at least

      const up = await eventually(async () => {
        const { body } = await getJson<HealthBody>(app, '/health');
        return body.subsystems.every((s) => s.state === 'up') ? body : undefined;
      }, 20_000, 'every subsystem up');
      expectHealthShape(up);
      expect(up.status).toBe('ok');
      expect(subsystem(up, 'redis').reason).toContain('127.0.0.1');

      const ready = await getJson<{ status: string; subsystems: HealthBody['subsystems'] }>(app, '/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
      expect(ready.body.subsystems.map((s) => s.name).sort()).toEqual(SUBSYSTEM_NAMES);

      const findings = await getJson<FindingsBody>(app, '/api/config/findings');
      expect(findings.status).toBe(200);
      expectFindingsShape(findings.body);
      expect(findings.body).toEqual({ degraded: false, blocking: 0, advisory: 0, findings: [] });

      // The server used the prefix of its file, and only it.
      const keys = await redis.keys(`${testEnv.keyPrefix}*`);
      expect(keys.length).toBeGreaterThan(0);
    });
  });
});

describe('without KVSTORE_URL', () => {
  it('every subsystem is disabled: /health ok (disabled does not count), /health/ready 503 not_ready', async () => {
    await withApp(testEnv.environment({ KVSTORE_URL: undefined }), async (app) => {
      const health = await preflightDone(app);
      expectHealthShape(health);
      for (const s of health.subsystems) {
        expect(s.state).toBe('disabled');
        expect(s.reason).toContain('KVSTORE_URL');
      }
      expect(health.status).toBe('ok');
      // The redis check is skipped, not failed.
      expect(health.preflight).toMatchObject({ status: 'pass', failed: 0 });
      expect(health.preflight.skipped).toBeGreaterThanOrEqual(1);

      const ready = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      const body = ready.json() as { status: string; subsystems: HealthBody['subsystems'] };
      expect(body.status).toBe('not_ready');
      expect(body.subsystems.map((s) => s.state)).toEqual(SUBSYSTEM_NAMES.map(() => 'disabled'));

      const findings = await getJson<FindingsBody>(app, '/api/config/findings');
      expectFindingsShape(findings.body);
      expect(findings.body).toMatchObject({ degraded: false, blocking: 0, advisory: 1 });
      expect(findings.body.findings).toEqual([
        { subsystem: 'redis', severity: 'advisory', reason: expect.stringContaining('KVSTORE_URL is not set'), project: null, trigger: null, field: 'KVSTORE_URL' },
      ]);
    });
  });
});

describe('KVSTORE_URL to a closed port', () => {
  it('redis degraded: /health still 200 but degraded, /health/ready 503, a blocking redis finding', async () => {
    const port = await freePort();
    await withApp(testEnv.environment({ KVSTORE_URL: `redis://:hunter2@127.0.0.1:${port}/0` }), async (app) => {
      const health = await preflightDone(app);
      expectHealthShape(health);
      expect(subsystem(health, 'redis').state).toBe('degraded');
      expect(health.status).toBe('degraded');
      expect(health.preflight.status).toBe('fail');
      const failure = health.preflight.failures.find((f) => f.name === 'redis');
      expect(failure?.fix_hint).toContain('KVSTORE_URL');

      const res = await app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(200);
      const ready = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect((ready.json() as { status: string }).status).toBe('not_ready');

      const findings = await getJson<FindingsBody>(app, '/api/config/findings');
      expectFindingsShape(findings.body);
      const redisFindings = findings.body.findings.filter((f) => f.subsystem === 'redis');
      expect(redisFindings).toHaveLength(1);
      expect(redisFindings[0]).toMatchObject({ severity: 'blocking', field: 'KVSTORE_URL' });
      expect(redisFindings[0]?.reason).toContain(String(port));
      // The URL's password never reaches a finding or /health.
      expect(JSON.stringify(findings.body)).not.toContain('hunter2');
      expect(JSON.stringify(health)).not.toContain('hunter2');
    });
  });
});
