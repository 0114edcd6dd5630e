import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedStoreService } from '../../src/store/embedded-store.service.js';
import { StoreConnectionService } from '../../src/store/store-connection.service.js';
import { eventually } from '../support/eventually.js';
import { redisServerMissing } from '../support/redis-server.js';
import type { FindingsBody, HealthBody } from '../support/response-bodies.js';
import { isAlive } from '../support/server-process.js';
import { bootApp, getJson } from '../support/test-app.js';
import { createTestEnv, type TestEnv } from '../support/test-env.js';


async function redisState(app: NestFastifyApplication) {
  const { body } = await getJson<HealthBody>(app, '/health');
  return body.subsystems.find((s) => s.name === 'redis')!;
}

describe.skipIf(redisServerMissing !== null)(`KVSTORE_URL=embedded${redisServerMissing ? ` (skipped: ${redisServerMissing})` : ''}`, () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const done of cleanup.reverse()) await done();
    cleanup.length = 0;
  });

  function envFor(label: string, vars: Record<string, string> = {}): TestEnv {
    const env = createTestEnv(label, { store: false, vars: { KVSTORE_URL: 'embedded', ...vars } });
    cleanup.push(() => env.remove());
    return env;
  }

  const closed = new WeakSet<NestFastifyApplication>();
  async function boot(env: TestEnv): Promise<NestFastifyApplication> {
    const app = await bootApp(env.environment());
    cleanup.push(async () => { if (!closed.has(app)) await app.close(); });
    return app;
  }
  async function close(app: NestFastifyApplication): Promise<void> {
    closed.add(app);
    await app.close();
  }

  it('runs a redis-server child on a unix socket under the data directory, keeps what was written across restarts, and stops it with the server', async () => {
    const env = envFor('embedded-store');
    const socket = join(env.dataDir, 'store', 'redis.sock');
    const app = await boot(env);
    await eventually(async () => ((await redisState(app)).state === 'up' ? true : undefined), 10_000, 'the embedded store up');
    const pid = app.get(EmbeddedStoreService).pid!;
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('redis-server');
    const store = app.get(StoreConnectionService);
    // Only the socket: no TCP listener at all.
    expect(await store.client!.config('GET', 'port')).toEqual(['port', '0']);
    expect(await store.client!.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    await store.client!.set(store.key('embedded-test'), 'kept');
    await close(app);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(socket)).toBe(false);

    const again = await boot(env);
    await eventually(async () => ((await redisState(again)).state === 'up' ? true : undefined), 10_000, 'the embedded store up again');
    const second = again.get(StoreConnectionService);
    expect(await second.client!.get(second.key('embedded-test'))).toBe('kept');
  }, 120_000);

  it('restarts a child that dies, and the store comes back up with the restart on /health', async () => {
    const env = envFor('embedded-restart');
    const app = await boot(env);
    await eventually(async () => ((await redisState(app)).state === 'up' ? true : undefined), 10_000, 'the embedded store up');
    const embedded = app.get(EmbeddedStoreService);
    const first = embedded.pid!;
    process.kill(first, 'SIGKILL');
    await eventually(async () => (embedded.pid && embedded.pid !== first ? true : undefined), 10_000, 'a new child');
    const state = await eventually(async () => {
      const redis = await redisState(app);
      return redis.state === 'up' && redis.reason.includes('restarted 1 time') ? redis : undefined;
    }, 15_000, 'the store up after the restart');
    expect(state.reason).toContain(`pid ${embedded.pid}`);
    const client = new Redis(join(env.dataDir, 'store', 'redis.sock'));
    cleanup.push(() => client.disconnect());
    expect(await client.ping()).toBe('PONG');
  }, 90_000);

  it('stops a child a killed server left behind before starting its own on the same files', async () => {
    const env = envFor('embedded-leftover');
    const app = await boot(env);
    await eventually(async () => ((await redisState(app)).state === 'up' ? true : undefined), 10_000, 'the embedded store up');
    const leftover = app.get(EmbeddedStoreService).pid!;
    // As if the server had been SIGKILLed: its child keeps running, its pid file stays.
    (app.get(EmbeddedStoreService) as unknown as { stopping: boolean; child: null }).stopping = true;
    (app.get(EmbeddedStoreService) as unknown as { child: null }).child = null;
    cleanup.push(() => { if (isAlive(leftover)) process.kill(leftover, 'SIGKILL'); });
    const next = await boot(env);
    await eventually(async () => ((await redisState(next)).state === 'up' ? true : undefined), 10_000, 'the new store up');
    await eventually(async () => (!isAlive(leftover) ? true : undefined), 5_000, 'the leftover stopped');
    expect(next.get(EmbeddedStoreService).pid).not.toBe(leftover);
  }, 120_000);

  it('without the binary, the store is down with a blocking finding naming the fix, and the rest serves', async () => {
    const env = envFor('embedded-missing', { SERVICE_REDIS_SERVER: '/nonexistent/redis-server' });
    const app = await boot(env);
    const redis = await redisState(app);
    expect(redis.state).toBe('down');
    expect(redis.reason).toContain('apt-get install redis-server');
    const findings = await eventually(async () => {
      const { body } = await getJson<FindingsBody>(app, '/api/config/findings');
      return body.findings.some((f) => f.subsystem === 'redis') ? body : undefined;
    }, 15_000, 'the store finding');
    const store = findings.findings.filter((f) => f.subsystem === 'redis');
    expect(store).toHaveLength(1);
    expect(store[0]).toMatchObject({ severity: 'blocking', field: 'KVSTORE_URL' });
    expect(store[0]!.reason).toContain('SERVICE_REDIS_SERVER');
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  }, 90_000);
});
