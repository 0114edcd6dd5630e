import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessStoreService } from '../../src/access/access-store.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from './support/auth-harness.js';
import type { IdentityBody, IdentityRefusalBody } from './support/identity-types.js';

/**
 * Spec Authentication rule 7: providers that issue two token shapes. Each installation below takes
 * audience, authority and name claim from one shape; the token of the other shape is refused and
 * the identity page (enforcement off) explains which check refused it, expected vs presented.
 * Also person grants keyed by a name claim other than `sub` (rule 5) and the rule 6 warning.
 */
describe('v1 and v2 token shapes (real AppModule, real OIDC authority)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let v1: NestFastifyApplication;
  let v2: NestFastifyApplication;
  /** v1 authority with the audience "corrected" to the v2 form: the issuer still refuses. */
  let half: NestFastifyApplication;

  const identity = async (app: NestFastifyApplication, token: string) => {
    const res = await app.inject({ method: 'GET', url: '/api/identity', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    return res.json<IdentityBody | IdentityRefusalBody>();
  };
  const accepted = (body: IdentityBody | IdentityRefusalBody): IdentityBody => {
    if (!body.authenticated) throw new Error(`refused: ${JSON.stringify(body.refusal)}`);
    return body;
  };
  const refused = (body: IdentityBody | IdentityRefusalBody): IdentityRefusalBody => {
    if (body.authenticated) throw new Error('expected a refusal');
    return body;
  };

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_shapes');
    const off = { SERVICE_AUTH_ENFORCE: 'false' };
    [v1, v2, half] = await Promise.all([
      bootApp(bench.environment({ ...off, SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.audienceOf('1.0'), SERVICE_AUTH_NAME_CLAIM: 'upn' })),
      bootApp(bench.environment({ ...off, SERVICE_AUTH_AUTHORITY: idp.authorityV2, SERVICE_AUTH_AUDIENCE: idp.audienceOf('2.0'), SERVICE_AUTH_NAME_CLAIM: 'preferred_username' })),
      bootApp(bench.environment({ ...off, SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.audienceOf('2.0'), SERVICE_AUTH_NAME_CLAIM: 'preferred_username' })),
    ]);
    await bench.db.query(`
      INSERT INTO access_person_grants (claim, value, role, created_by) VALUES
        ('upn', 'ann@example.test', 'operator', 'test'),
        ('preferred_username', 'ann@example.test', 'reader', 'test'),
        ('sub', 'ann', 'admin', 'test');`);
    for (const app of [v1, v2, half]) app.get(AccessStoreService).invalidate();
  });

  afterAll(async () => {
    await Promise.all([v1?.close(), v2?.close(), half?.close()]);
    await bench?.cleanup();
    await idp?.stop();
  });

  it('v1 installation accepts a v1 token (api:// audience, legacy issuer, upn)', async () => {
    const body = accepted(await identity(v1, idp.mint({ version: '1.0', sub: 'ann' })));
    expect(body.issuer).toBe(idp.issuer);
  });

  it('v2 installation accepts a v2 token (bare client id audience, v2 issuer, preferred_username)', async () => {
    const body = accepted(await identity(v2, idp.mint({ version: '2.0', sub: 'ann' })));
    expect(body.issuer).toBe(idp.issuerV2);
  });

  it('a v2 token at the v1 installation: refused on audience, expected vs presented shown', async () => {
    const body = refused(await identity(v1, idp.mint({ version: '2.0', sub: 'ann' })));
    expect(body.refusal).toMatchObject({
      reason: 'audience',
      detail: {
        expectedAuthority: idp.authority, expectedAudience: `api://${idp.apiClientId}`, expectedIssuer: idp.issuer,
        presentedAudience: idp.apiClientId, presentedIssuer: idp.issuerV2, presentedVersion: '2.0',
      },
    });
  });

  it('a v1 token at the v2 installation: refused on audience', async () => {
    const body = refused(await identity(v2, idp.mint({ version: '1.0', sub: 'ann' })));
    expect(body.refusal).toMatchObject({
      reason: 'audience',
      detail: { expectedAudience: idp.apiClientId, expectedIssuer: idp.issuerV2, presentedAudience: `api://${idp.apiClientId}`, presentedVersion: '1.0' },
    });
  });

  it('correcting only the audience leaves the issuer refusing (the issuer follows the authority)', async () => {
    const body = refused(await identity(half, idp.mint({ version: '2.0', sub: 'ann' })));
    expect(body.refusal).toMatchObject({
      reason: 'issuer',
      detail: { expectedAuthority: idp.authority, expectedIssuer: idp.issuer, presentedIssuer: idp.issuerV2, presentedVersion: '2.0', presentedAudience: idp.apiClientId },
    });
    expect(body.refusal.message).toMatch(/the issuer follows the authority/);
  });

  it('person grant under name_claim upn resolves; one under sub grants nothing and is a finding', async () => {
    const body = accepted(await identity(v1, idp.mint({ version: '1.0', sub: 'ann' })));
    expect(body.roles).toEqual(['operator']);
    expect(body.findings).toContainEqual(expect.objectContaining({
      field: 'auth.name_claim', reason: expect.stringMatching(/person grant sub=ann \(role 'admin'\) grants nothing.*'upn'/),
    }));
  });

  it('person grant under name_claim preferred_username resolves in the v2 installation', async () => {
    const body = accepted(await identity(v2, idp.mint({ version: '2.0', sub: 'ann' })));
    expect(body.roles).toEqual(['reader']);
  });

  it('person grant values compare ordinally', async () => {
    const body = accepted(await identity(v1, idp.mint({ version: '1.0', sub: 'ann', claims: { upn: 'Ann@example.test' } })));
    expect(body.roles).toEqual([]);
  });

  it('warns whenever name_claim is not sub (rule 6)', async () => {
    const body = accepted(await identity(v1, idp.mint({ version: '1.0', sub: 'nobody' })));
    expect(body.findings).toContainEqual(expect.objectContaining({ field: 'auth.name_claim', reason: expect.stringMatching(/name_claim is 'upn', not 'sub'/) }));
  });
});
