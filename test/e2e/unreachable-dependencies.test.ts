import { writeFileSync } from 'node:fs';
import { type AddressInfo, type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { eventually } from '../support/eventually.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { type PrivateRedis, deleteKeys, startPrivateRedis, uniqueKeyPrefix } from '../support/test-store.js';
import type { FindingsBody, HealthBody } from '../support/response-bodies.js';
import { expectFindingsShape, expectHealthShape } from '../support/response-shapes.js';
import { type ServerProcess, firstAnswers, freePort, getJson, startServer, tempDir } from '../support/server-process.js';

/** The built server pointed at a database and a store that do not answer. */
const dir = tempDir('e2e-unreachable');
const servers: ServerProcess[] = [];
let database: TestDatabase | null = null;
let redisServer: PrivateRedis | null = null;

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await redisServer?.kill();
  await database?.drop();
  dir.remove();
});

function subsystemState(body: HealthBody, name: string): string | undefined {
  return body.subsystems.find((s) => s.name === name)?.state;
}

/**
 * /health and /api/config/findings answer, with their full shapes, whatever is unreachable. How fast
 * (the 2 s target) is measured by `npm run bench:boot`, not asserted under the test run's load.
 */
async function expectPromptAnswers(server: ServerProcess): Promise<void> {
  const first = await firstAnswers(server);
  expectHealthShape(first.health.body);
  expectFindingsShape(first.findings.body);
}

async function checksDone(server: ServerProcess): Promise<HealthBody> {
  return eventually(async () => {
    const { body } = await getJson<HealthBody>(`${server.baseUrl}/health`, 1000);
    return body.preflight.status === 'pending' ? undefined : body;
  }, 30_000, 'the startup checks');
}

describe('DATABASE_URL to a closed port', () => {
  it('gives a blocking database finding with field DATABASE_URL, and the server keeps serving', async () => {
    const port = await freePort();
    const config = join(dir.dir, 'db.yml');
    writeFileSync(config, stringify({}));
    const server = await startServer({
      SERVICE_CONFIG: config, SERVICE_DATA_DIR: dir.dir, DATABASE_URL: `postgres://svc:hunter2@127.0.0.1:${port}/nothing`,
    });
    servers.push(server);
    await expectPromptAnswers(server);
    const health = await checksDone(server);
    expectHealthShape(health);
    expect(health.preflight.status).toBe('fail');
    expect(health.preflight.failures.find((f) => f.name === 'database')?.fix_hint).toContain('DATABASE_URL');

    const { status, body } = await getJson<FindingsBody>(`${server.baseUrl}/api/config/findings`);
    expect(status).toBe(200);
    const db = body.findings.filter((f) => f.subsystem === 'database');
    expect(db).toHaveLength(1);
    expect(db[0]).toMatchObject({ severity: 'blocking', field: 'DATABASE_URL', project: null, trigger: null });
    expect(db[0]?.reason).toContain(`127.0.0.1:${port}`);
    expect(JSON.stringify(body)).not.toContain('hunter2');

    // Still serving: health answers again, and a route that needs the database says 503 instead of crashing.
    expect((await getJson<HealthBody>(`${server.baseUrl}/health`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toContain('hunter2');
  });
});

describe('DATABASE_URL and KVSTORE_URL to a listener that never answers', () => {
  it('answers /health and the findings before either dependency has answered', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => { sockets.push(socket); socket.on('error', () => {}); });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const port = (silent.address() as AddressInfo).port;
    const config = join(dir.dir, 'silent.yml');
    writeFileSync(config, stringify({}));
    const server = await startServer({
      SERVICE_CONFIG: config, SERVICE_DATA_DIR: dir.dir,
      DATABASE_URL: `postgres://svc@127.0.0.1:${port}/nothing`, KVSTORE_URL: `redis://127.0.0.1:${port}/0`,
    });
    servers.push(server);
    try {
      const first = await firstAnswers(server);
      expectHealthShape(first.health.body);
      expectFindingsShape(first.findings.body);
      // Nothing waited: the checks are still pending on the silent database when /health first answers.
      expect(first.health.body.preflight.status, server.output()).toBe('pending');
      expect(subsystemState(first.health.body, 'database')).not.toBe('up');
      expect(sockets.length, 'the server did try the silent listener').toBeGreaterThan(0);
    } finally {
      await server.stop();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});

describe('KVSTORE_URL to a closed port, then the store comes up', () => {
  it('redis degraded with a blocking finding, then up within the retry interval once Redis answers', async () => {
    database = await createTestDatabase('e2e_unreachable_store');
    const port = await freePort();
    const keyPrefix = uniqueKeyPrefix('e2e-store');
    const config = join(dir.dir, 'store.yml');
    const retrySeconds = 2;
    writeFileSync(config, stringify({ queue: { redis_retry_interval_seconds: retrySeconds, key_prefix: keyPrefix } }));
    const server = await startServer({
      SERVICE_CONFIG: config, SERVICE_DATA_DIR: dir.dir, DATABASE_URL: database.url, KVSTORE_URL: `redis://127.0.0.1:${port}/0`,
    });
    servers.push(server);
    await expectPromptAnswers(server);

    const health = await checksDone(server);
    expectHealthShape(health);
    expect(subsystemState(health, 'redis')).toBe('degraded');
    expect(health.status).toBe('degraded');
    const before = (await getJson<FindingsBody>(`${server.baseUrl}/api/config/findings`)).body;
    const redisFinding = before.findings.filter((f) => f.subsystem === 'redis');
    expect(redisFinding).toHaveLength(1);
    expect(redisFinding[0]).toMatchObject({ severity: 'blocking', field: 'KVSTORE_URL' });
    expect(redisFinding[0]?.reason).toContain(String(port));

    // The store stays away a while (the client has been retrying), then comes up on that port.
    await new Promise((done) => setTimeout(done, 5000));
    expect(subsystemState((await getJson<HealthBody>(`${server.baseUrl}/health`)).body, 'redis')).toBe('degraded');
    redisServer = await startPrivateRedis(port);
    const probe = redisServer.client;
    const answeredAt = Date.now();

    const up = await eventually(async () => {
      const { body } = await getJson<HealthBody>(`${server.baseUrl}/health`, 1000);
      return subsystemState(body, 'redis') === 'up' ? body : undefined;
    }, 15_000, 'the redis subsystem to turn up');
    const tookMs = Date.now() - answeredAt;
    // Within one retry interval (2 s, not the 30 s default), with room for the reconnect under the suite's load.
    expect(tookMs, `redis turned up ${tookMs} ms after the store answered`).toBeLessThanOrEqual(retrySeconds * 1000 + 2000);
    expect(up.subsystems.find((s) => s.name === 'redis')?.reason).toContain(String(port));

    // The blocking finding clears by itself.
    const after = await eventually(async () => {
      const { body } = await getJson<FindingsBody>(`${server.baseUrl}/api/config/findings`);
      return body.findings.some((f) => f.subsystem === 'redis') ? undefined : body;
    }, 10_000, 'the redis finding to clear');
    expect(after.blocking).toBe(0);
    expect(server.output()).toMatch(/redis: degraded → up/);

    await deleteKeys(probe, keyPrefix);
    await server.stop();
  });
});
