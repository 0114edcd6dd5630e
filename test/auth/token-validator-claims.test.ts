import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from './support/auth-harness.js';
import type { UnauthorizedResponse } from './support/identity-types.js';

/**
 * Claims of the wrong shape are `malformed` (security review): a token without a non-empty string
 * `sub` would otherwise merge all such callers into one observed subject "".
 */
describe('claim shapes refused as malformed (real AppModule, real OIDC authority)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_claims');
    app = await bootApp(
      bench.environment({ SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true' }),
    );
  });
  afterAll(async () => {
    await app?.close();
    await bench?.cleanup();
    await idp?.stop();
  });

  const identity = (token: string) => app.inject({ method: 'GET', url: '/api/identity', headers: bearer(token) });

  it.each([
    { name: 'no sub', claims: { sub: undefined }, message: /no subject \(sub\)/ },
    { name: 'empty sub', claims: { sub: '' }, message: /no subject \(sub\)/ },
    { name: 'numeric sub', claims: { sub: 42 }, message: /no subject \(sub\)/ },
    { name: 'non-numeric exp', claims: { exp: 'tomorrow' }, message: /invalid exp value/ },
  ])('$name: 401 malformed', async ({ claims, message }) => {
    const res = await identity(idp.mint({ claims }));
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="pipeline-service", error="invalid_token", error_description="malformed"');
    const body = res.json<UnauthorizedResponse>();
    expect(body).toMatchObject({ error: 'unauthorized', reason: 'malformed', detail: { expectedIssuer: idp.issuer } });
    expect(body.message).toMatch(message);
  });

  it('the same token with a sub passes', async () => {
    expect((await identity(idp.mint({ sub: 'ann' }))).statusCode).toBe(200);
  });
});
