import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Socket, io } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccessStoreService } from '../../src/access/access-store.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bootApp, createAuthBench } from './support/auth-harness.js';
import type { UnauthorizedResponse } from './support/identity-types.js';

interface HubRefusal {
  error: string;
  missingPermissions: string[];
  method: string;
}

/**
 * The live hub at /hub/jobs (contract): the token from the handshake (`auth.token` or the
 * Authorization header), the same permission table as HTTP, refusals as an `error` event with the
 * permission-denied body plus the method. Real server listening on a real socket.
 */
describe('live hub /hub/jobs (real AppModule listening, socket.io-client, real OIDC authority)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let on: NestFastifyApplication;
  let off: NestFastifyApplication;
  let onUrl: string;
  let offUrl: string;
  const sockets: Socket[] = [];

  const connect = (url: string, opts: { token?: string; header?: string } = {}): Socket => {
    const socket = io(url, {
      path: '/hub/jobs', transports: ['websocket'], reconnection: false, forceNew: true, timeout: 5_000,
      ...(opts.token === undefined ? {} : { auth: { token: opts.token } }),
      ...(opts.header === undefined ? {} : { extraHeaders: { authorization: opts.header } }),
    });
    sockets.push(socket);
    return socket;
  };
  const connected = (socket: Socket): Promise<void> =>
    new Promise((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (err) => reject(err));
    });
  const connectError = (socket: Socket): Promise<Error & { data?: UnauthorizedResponse }> =>
    new Promise((resolve, reject) => {
      socket.once('connect', () => reject(new Error('connected, expected a refusal')));
      socket.once('connect_error', (err: Error & { data?: UnauthorizedResponse }) => resolve(err));
    });
  const nextError = (socket: Socket, ms = 3_000): Promise<HubRefusal | null> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), ms);
      socket.once('error', (body: HubRefusal) => {
        clearTimeout(timer);
        resolve(body);
      });
    });
  const call = (socket: Socket, method: string, body: unknown): Promise<{ ok: boolean } | null> =>
    socket.timeout(3_000).emitWithAck(method, body).catch(() => null) as Promise<{ ok: boolean } | null>;

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_hub');
    const auth = { SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience };
    [on, off] = await Promise.all([
      bootApp(bench.environment({ ...auth, SERVICE_AUTH_ENFORCE: 'true' })),
      bootApp(bench.environment({ ...auth, SERVICE_AUTH_ENFORCE: 'false' })),
    ]);
    await bench.db.query(`INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES ('lister', '{runs.read}', 'test')`);
    for (const app of [on, off]) app.get(AccessStoreService).invalidate();
    await on.listen(0, '127.0.0.1');
    await off.listen(0, '127.0.0.1');
    onUrl = await on.getUrl();
    offUrl = await off.getUrl();
  });

  afterEach(() => {
    for (const s of sockets.splice(0)) s.disconnect();
  });

  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
    await bench?.cleanup();
    await idp?.stop();
  });

  it('a valid token lacking runs.watch: run.watch answers with an error event naming method and permission', async () => {
    const socket = connect(onUrl, { token: idp.mint({ claims: { roles: ['lister'] } }) });
    await connected(socket);
    const refusal = nextError(socket);
    socket.emit('run.watch', { runId: randomUUID() });
    expect(await refusal).toEqual({ error: 'missing permission: runs.watch', missingPermissions: ['runs.watch'], method: 'run.watch' });
    // The permission it holds still works on the same connection.
    expect(await call(socket, 'runs.subscribe', {})).toEqual({ ok: true });
  });

  it('a caller with no roles is refused runs.subscribe the same way', async () => {
    const socket = connect(onUrl, { token: idp.mint({ sub: 'nobody' }) });
    await connected(socket);
    const refusal = nextError(socket);
    socket.emit('runs.subscribe', {});
    expect(await refusal).toEqual({ error: 'missing permission: runs.read', missingPermissions: ['runs.read'], method: 'runs.subscribe' });
  });

  it('a reader may watch a run (no error event)', async () => {
    const socket = connect(onUrl, { token: idp.mint({ claims: { roles: ['reader'] } }) });
    await connected(socket);
    const refusal = nextError(socket, 500);
    expect(await call(socket, 'run.watch', { runId: randomUUID() })).toEqual({ ok: true });
    expect(await refusal).toBeNull();
  });

  it('the token may come in the Authorization header of the handshake', async () => {
    const socket = connect(onUrl, { header: `Bearer ${idp.mint({ claims: { roles: ['reader'] } })}` });
    await connected(socket);
    expect(await call(socket, 'runs.subscribe', {})).toEqual({ ok: true });
  });

  it('enforcement on and no token: the connection is refused (connect_error carrying the 401 body)', async () => {
    const err = await connectError(connect(onUrl));
    expect(err.message).toBe('unauthorized');
    expect(err.data).toMatchObject({ error: 'unauthorized', reason: 'missing' });
  });

  it('enforcement on and an invalid token: refused with the reason', async () => {
    const err = await connectError(connect(onUrl, { token: idp.mint({ aud: 'someone-else' }) }));
    expect(err.data).toMatchObject({ reason: 'audience', detail: { expectedAudience: idp.defaultAudience, presentedAudience: 'someone-else' } });
  });

  it('enforcement off: no token connects and nothing is refused', async () => {
    const socket = connect(offUrl);
    await connected(socket);
    const refusal = nextError(socket, 500);
    expect(await call(socket, 'run.watch', { runId: randomUUID() })).toEqual({ ok: true });
    expect(await refusal).toBeNull();
  });
});
