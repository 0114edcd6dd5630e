import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from '../auth/support/auth-harness.js';
import type { IdentityBody } from '../auth/support/identity-types.js';

/**
 * Two replicas (two Nest applications on one database and one store): a write saved on one
 * applies to the very next request on the other, well inside the 5 s background refresh.
 */
let idp: OidcAuthority;
let bench: AuthBench;
let a: NestFastifyApplication;
let b: NestFastifyApplication;

const identity = async (app: NestFastifyApplication, token: string) =>
  (await app.inject({ method: 'GET', url: '/api/identity', headers: bearer(token) })).json<IdentityBody>();

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('access_replicas');
  const env = bench.environment({
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
    SERVICE_ADMIN_GRANT: 'sub:root', KVSTORE_URL: 'redis://127.0.0.1:6379',
  });
  [a, b] = await Promise.all([bootApp(env), bootApp(env)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await bench?.cleanup();
  await idp?.stop();
});

describe('an access write on one replica', () => {
  it('applies to the next request on the other: a grant, its removal, and saved claim names', async () => {
    const root = idp.mint({ sub: 'root' });
    const carol = idp.mint({ sub: 'carol', claims: { app_roles: ['reader'] } });
    // B has loaded (and cached) the document before the write.
    expect((await identity(b, carol)).roles).toEqual([]);

    const started = Date.now();
    expect((await a.inject({ method: 'PUT', url: '/api/access/people/sub/carol', headers: bearer(root), payload: { roles: ['operator'] } })).statusCode).toBe(200);
    expect((await identity(b, carol)).roles).toEqual(['operator']);
    expect((await b.inject({ method: 'POST', url: '/api/runs/00000000-0000-4000-8000-000000000000/cancel', headers: bearer(carol) })).statusCode).not.toBe(403);

    expect((await a.inject({ method: 'DELETE', url: '/api/access/people/sub/carol', headers: bearer(root) })).statusCode).toBe(204);
    expect((await identity(b, carol)).roles).toEqual([]);

    expect((await a.inject({ method: 'PUT', url: '/api/access/claims', headers: bearer(root), payload: { role_claim: 'app_roles' } })).statusCode).toBe(200);
    expect((await identity(b, carol)).roles).toEqual(['reader']);
    // All of it far sooner than the background refresh would have brought it.
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
