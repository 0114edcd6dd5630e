import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { type Socket, io } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccessStoreService } from '../../src/access/access-store.service.js';
import { MAX_WATCHED_RUNS } from '../../src/hub/jobs.gateway.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { TEST_QUEUE } from '../support/test-env.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../support/test-store.js';
import { type AuthBench, bootApp, createAuthBench } from './support/auth-harness.js';

interface HubError {
  error: string;
  reason?: string;
  missingPermissions?: string[];
  leftRooms?: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A hub connection stays authorised only while its token and roles do (enforcement on): expiry
 * disconnects it, a revoked role takes it out of the rooms, and the feed stops reaching it.
 * Real server, real OIDC authority, real Redis feed stream under a key prefix of this file's own.
 */
describe('hub connection lifetime (real authority, real feed)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let app: NestFastifyApplication;
  let url: string;
  let redis: Redis;
  const keyPrefix = uniqueKeyPrefix('hub-lifetime');
  const sockets: Socket[] = [];

  const connect = async (token: string): Promise<Socket> => {
    const socket = io(url, { path: '/hub/jobs', transports: ['websocket'], reconnection: false, forceNew: true, timeout: 5_000, auth: { token } });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    return socket;
  };
  const call = (socket: Socket, method: string, body: unknown = {}): Promise<{ ok: boolean; error?: string } | null> =>
    socket.timeout(3_000).emitWithAck(method, body).catch(() => null) as Promise<{ ok: boolean; error?: string } | null>;
  const next = <T>(socket: Socket, event: string, ms: number): Promise<T | null> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), ms);
      socket.once(event, (body: T) => {
        clearTimeout(timer);
        resolve(body);
      });
    });
  /** Appends one entry to the live feed; resolves with what `socket` received within `ms`. */
  const feed = async (socket: Socket, run: string, ms = 2_000): Promise<Record<string, string> | null> => {
    const received = next<Record<string, string>>(socket, 'run.event', ms);
    await redis.xadd(`${keyPrefix}feed:runs`, '*', 'run', run, 'kind', 'test');
    return received;
  };

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_hub_life');
    bench.writeConfig({ sandbox: { backend: 'in-process' }, queue: { ...TEST_QUEUE, key_prefix: keyPrefix } });
    redis = new Redis(REDIS_URL);
    app = await bootApp(bench.environment({
      SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true', KVSTORE_URL: REDIS_URL,
    }));
    await bench.db.query(`INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES ('watcher', '{runs.read,runs.watch}', 'test')`);
    // A NULL inside a mapping's role list makes role resolution throw for callers in that group.
    await bench.db.query(`INSERT INTO access_group_roles (group_value, roles, updated_by) VALUES ('broken', '{NULL}', 'test')`);
    app.get(AccessStoreService).invalidate();
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
  });

  afterEach(() => {
    for (const s of sockets.splice(0)) s.disconnect();
  });

  afterAll(async () => {
    await app?.close();
    if (redis) {
      await deleteKeys(redis, keyPrefix);
      redis.disconnect();
    }
    await bench?.cleanup();
    await idp?.stop();
  });

  it('an expiring token: feed arrives while valid, then the socket gets the 401 body and is disconnected', async () => {
    // Valid ~3 s more under the validator's 60 s clock tolerance.
    const socket = await connect(idp.mint({ exp: Math.floor(Date.now() / 1000) - 57, claims: { roles: ['watcher'] } }));
    const run = randomUUID();
    expect(await call(socket, 'runs.subscribe')).toEqual({ ok: true });
    expect(await call(socket, 'run.watch', { runId: run })).toEqual({ ok: true });
    expect(await feed(socket, run)).toMatchObject({ run });

    const error = next<HubError>(socket, 'error', 8_000);
    const disconnected = next<string>(socket, 'disconnect', 8_000);
    expect(await error).toMatchObject({ error: 'unauthorized', reason: 'expired' });
    expect(await disconnected).toBe('io server disconnect');
    expect(await feed(socket, run, 1_000)).toBeNull();
  }, 20_000);

  it('a revoked role: the socket leaves its rooms, stops getting the feed, and is refused subscribe/watch', async () => {
    await bench.db.query(`INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES ('temp', '{runs.read,runs.watch}', 'test')`);
    app.get(AccessStoreService).invalidate();
    const socket = await connect(idp.mint({ claims: { roles: ['temp'] } }));
    const run = randomUUID();
    expect(await call(socket, 'runs.subscribe')).toEqual({ ok: true });
    expect(await call(socket, 'run.watch', { runId: run })).toEqual({ ok: true });
    expect(await feed(socket, run)).toMatchObject({ run });

    // The access sweep runs every second; the wait is long for a loaded machine, not a timing check.
    const left = next<HubError>(socket, 'error', 15_000);
    await bench.db.query(`DELETE FROM access_custom_roles WHERE name = 'temp'`);
    app.get(AccessStoreService).invalidate();
    expect(await left).toMatchObject({ missingPermissions: ['runs.read', 'runs.watch'], leftRooms: expect.arrayContaining(['runs', `run:${run}`]) });
    expect(await feed(socket, run, 1_000)).toBeNull();

    const refused = next<HubError>(socket, 'error', 3_000);
    socket.emit('run.watch', { runId: randomUUID() });
    expect(await refused).toMatchObject({ error: 'missing permission: runs.watch', missingPermissions: ['runs.watch'] });
    expect(socket.connected).toBe(true); // the token itself is still valid
  }, 40_000);

  it(`run.watch is capped at ${MAX_WATCHED_RUNS} runs per connection`, async () => {
    const socket = await connect(idp.mint({ claims: { roles: ['watcher'] } }));
    const runs = Array.from({ length: MAX_WATCHED_RUNS }, () => randomUUID());
    for (const runId of runs) expect(await call(socket, 'run.watch', { runId })).toEqual({ ok: true });
    const over = await call(socket, 'run.watch', { runId: randomUUID() });
    expect(over).toMatchObject({ ok: false, error: expect.stringContaining(`already watches ${MAX_WATCHED_RUNS} runs`) });
    expect(await call(socket, 'run.watch', { runId: runs[0] })).toEqual({ ok: true }); // already watched: no new room
    expect(await call(socket, 'run.unwatch', { runId: runs[0] })).toEqual({ ok: true });
    expect(await call(socket, 'run.watch', { runId: randomUUID() })).toEqual({ ok: true });
  }, 30_000);

  it('a handshake whose authentication throws is refused, not left hanging (and the process survives)', async () => {
    const err = await connect(idp.mint({ claims: { groups: ['broken'] } })).then(
      () => null,
      (e: Error & { data?: { reason?: string } }) => e,
    );
    expect(err?.message).toBe('unauthorized');
    expect(err?.data).toMatchObject({ reason: 'temporarily_unavailable' });
    await sleep(100);
    expect((await connect(idp.mint({ claims: { roles: ['watcher'] } }))).connected).toBe(true);
  });
});
