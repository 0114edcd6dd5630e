import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorityService } from '../../src/auth/authority.service.js';
import type { Finding } from '../../src/findings/finding.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from './support/auth-harness.js';
import type { FindingsBody, IdentityBody, IdentityRefusalBody, UnauthorizedResponse } from './support/identity-types.js';

/**
 * Spec Authentication rule 6: while the authority is unreachable, a token whose signing key is
 * not cached gets 401 `temporarily_unavailable` pointing at /api/config/findings, where an `auth`
 * finding names the authority and the cause: blocking with enforcement on, advisory with it off.
 * It clears when the authority answers again. The 30 s probe is driven by `AuthorityService.check()`.
 */
describe('unreachable authority and recovery (real AppModule, real OIDC authority)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let on: NestFastifyApplication;
  let off: NestFastifyApplication;

  const authFindings = async (app: NestFastifyApplication): Promise<{ body: FindingsBody; auth: Finding[] }> => {
    const res = await app.inject({ method: 'GET', url: '/api/config/findings' });
    expect(res.statusCode).toBe(200);
    const body = res.json<FindingsBody>();
    return { body, auth: body.findings.filter((f) => f.subsystem === 'auth' && f.field === 'auth.authority') };
  };
  const identity = (app: NestFastifyApplication, token: string) =>
    app.inject({ method: 'GET', url: '/api/identity', headers: bearer(token) });

  beforeAll(async () => {
    idp = await OidcAuthority.start({ keyCount: 3 });
    bench = await createAuthBench('auth_outage');
    const auth = { SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience };
    [on, off] = await Promise.all([
      bootApp(bench.environment({ ...auth, SERVICE_AUTH_ENFORCE: 'true' })),
      bootApp(bench.environment({ ...auth, SERVICE_AUTH_ENFORCE: 'false' })),
    ]);
  });

  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
    await bench?.cleanup();
    await idp?.stop();
  });

  it('while reachable there is no auth finding, and key-1 gets cached by a first call', async () => {
    for (const app of [on, off]) {
      await app.get(AuthorityService).check();
      expect((await authFindings(app)).auth).toEqual([]);
      expect((await identity(app, idp.mint({ kid: 'key-1' }))).statusCode).toBe(200);
    }
  });

  describe('authority stopped', () => {
    beforeAll(async () => {
      await idp.stop();
      await Promise.all([on.get(AuthorityService).check(), off.get(AuthorityService).check()]);
    });

    it('a token with an uncached kid: 401 temporarily_unavailable, pointing at the findings route', async () => {
      const res = await identity(on, idp.mint({ kid: 'key-2' }));
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe(
        'Bearer realm="pipeline-service", error="temporarily_unavailable", error_description="token authority unreachable; see /api/config/findings"',
      );
      const body = res.json<UnauthorizedResponse>();
      expect(body).toMatchObject({ error: 'temporarily_unavailable', reason: 'temporarily_unavailable', findings: '/api/config/findings' });
      expect(body.message).toMatch(/key 'key-2' is not cached/);
    });

    it('a token whose key is cached keeps validating', async () => {
      expect((await identity(on, idp.mint({ kid: 'key-1' }))).statusCode).toBe(200);
    });

    it('enforcement on: the auth finding names the authority and the cause, and is blocking', async () => {
      const { body, auth } = await authFindings(on);
      expect(auth).toHaveLength(1);
      expect(auth[0]).toMatchObject({ subsystem: 'auth', severity: 'blocking' });
      expect(auth[0]?.reason).toContain(`token authority ${idp.authority} is unreachable`);
      expect(auth[0]?.reason).toMatch(/ECONNREFUSED/);
      expect(body.degraded).toBe(true);
    });

    it('enforcement off: the same finding is advisory; identity shows temporarily_unavailable, nothing refused', async () => {
      const { auth } = await authFindings(off);
      expect(auth).toHaveLength(1);
      expect(auth[0]).toMatchObject({ subsystem: 'auth', severity: 'advisory' });
      expect(auth[0]?.reason).toContain(idp.authority);
      const res = await identity(off, idp.mint({ kid: 'key-3' }));
      expect(res.statusCode).toBe(200);
      expect(res.json<IdentityRefusalBody>()).toMatchObject({ authenticated: false, refusal: { reason: 'temporarily_unavailable' } });
    });
  });

  describe('authority back', () => {
    beforeAll(async () => {
      await idp.restart();
    });

    it('the finding stays until the next probe, then clears by itself', async () => {
      expect((await authFindings(on)).auth).toHaveLength(1);
      await Promise.all([on.get(AuthorityService).check(), off.get(AuthorityService).check()]);
      expect((await authFindings(on)).auth).toEqual([]);
      expect((await authFindings(off)).auth).toEqual([]);
    });

    it('the key that was unavailable validates now', async () => {
      const res = await identity(on, idp.mint({ kid: 'key-2' }));
      expect(res.statusCode).toBe(200);
      expect(res.json<IdentityBody>().authenticated).toBe(true);
    });
  });
});
