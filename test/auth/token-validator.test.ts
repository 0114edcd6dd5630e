import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorityProbe } from '../../src/auth/authority-probe.js';
import { bearerTokenOf, TokenValidator, type TokenValidationResult } from '../../src/auth/token-validator.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';

interface Opts {
  enforce?: boolean;
  cacheMaxAgeMs?: number;
  requestsPerMinute?: number;
}

function validatorFor(authority: string, audience: string | null, opts: Opts = {}) {
  const probe = new AuthorityProbe({ authority, enforce: opts.enforce ?? true, timeoutMs: 2_000 });
  const validator = new TokenValidator({
    authority,
    audience,
    discovery: probe,
    jwks: {
      ...(opts.cacheMaxAgeMs === undefined ? {} : { cacheMaxAgeMs: opts.cacheMaxAgeMs }),
      ...(opts.requestsPerMinute === undefined ? {} : { requestsPerMinute: opts.requestsPerMinute }),
    },
  });
  return { probe, validator };
}

function refusal(result: TokenValidationResult) {
  if (result.ok) throw new Error('expected a refusal, got a valid token');
  return result;
}

const now = (): number => Math.floor(Date.now() / 1000);

describe('token validation against a real OIDC authority', () => {
  let idp: OidcAuthority;
  let v: TokenValidator;
  let probe: AuthorityProbe;

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    ({ validator: v, probe } = validatorFor(idp.authority, idp.defaultAudience));
    await probe.probeOnce();
  });
  afterAll(async () => {
    await idp.stop();
  });

  it('the probe discovers issuer and jwks_uri', () => {
    expect(probe.status()).toMatchObject({ state: 'reachable', cause: null });
    expect(probe.current()).toEqual({ issuer: idp.issuer, jwksUri: `${idp.authority}/jwks` });
    expect(probe.finding()).toBeNull();
  });

  it('accepts a valid token and returns its claims', async () => {
    const result = await v.validate(idp.mint({ sub: 'ann', claims: { roles: ['reader'] } }));
    expect(result).toMatchObject({ ok: true, claims: { sub: 'ann', iss: idp.issuer, aud: 'pipeline-service', roles: ['reader'] } });
  });

  it('accepts an audience array containing the configured audience exactly', async () => {
    expect((await v.validate(idp.mint({ aud: ['other', 'pipeline-service'] }))).ok).toBe(true);
  });

  it('caches keys: repeated validation does not refetch the JWKS', async () => {
    await v.validate(idp.mint());
    const before = idp.jwksRequests();
    for (let i = 0; i < 5; i++) expect((await v.validate(idp.mint())).ok).toBe(true);
    expect(idp.jwksRequests()).toBe(before);
  });

  it('missing: no token at all', async () => {
    expect(refusal(await v.validate(null)).reason).toBe('missing');
    expect(refusal(await v.validate('   ')).reason).toBe('missing');
    expect(bearerTokenOf(undefined)).toBeNull();
    expect(bearerTokenOf('Basic abc')).toBeNull();
    expect(bearerTokenOf('Bearer ')).toBeNull();
    expect(bearerTokenOf('bearer a.b.c')).toBe('a.b.c');
  });

  it.each(['not-a-jwt', 'a.b.c', 'a.b', `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.bm90IGpzb24.sig`])(
    'malformed: %s',
    async (token) => {
      const r = refusal(await v.validate(token));
      expect(r.reason).toBe('malformed');
      expect(r.detail.expectedAuthority).toBe(idp.authority);
    },
  );

  it('signature: a foreign key with an unpublished kid', async () => {
    const r = refusal(await v.validate(idp.mint({ foreignKey: true, kid: 'rogue' })));
    expect(r.reason).toBe('signature');
    expect(r.detail.message).toContain("'rogue'");
  });

  it('unknown kids past the JWKS rate limit while the authority is up: retryable, published keys unaffected', async () => {
    const { validator, probe: p } = validatorFor(idp.authority, idp.defaultAudience, { requestsPerMinute: 1 });
    await p.probeOnce();
    // The first unknown kid is fetched and not published; past the limit an unknown kid might be a
    // freshly rotated key, so the answer is retryable.
    expect(refusal(await validator.validate(idp.mint({ foreignKey: true, kid: 'r1' }))).reason).toBe('signature');
    for (const kid of ['r2', 'r3']) {
      expect(refusal(await validator.validate(idp.mint({ foreignKey: true, kid }))).reason).toBe('temporarily_unavailable');
    }
    // key-1 is not cached and the limit is spent: the key comes from the probe's last JWKS.
    expect((await validator.validate(idp.mint())).ok).toBe(true);
    expect(refusal(await validator.validate(idp.mint({ foreignKey: true, kid: 'key-2' }))).reason).toBe('signature');
  });

  it('signature: a foreign key claiming a published kid', async () => {
    expect(refusal(await v.validate(idp.mint({ foreignKey: true, kid: 'key-1' }))).reason).toBe('signature');
  });

  it('signature: a tampered payload', async () => {
    const [h, , s] = idp.mint({ sub: 'ann' }).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'root', aud: 'pipeline-service', iss: idp.issuer, exp: now() + 600 })).toString(
      'base64url',
    );
    expect(refusal(await v.validate(`${h}.${forged}.${s}`)).reason).toBe('signature');
  });

  it('signature: alg none is never accepted', async () => {
    const enc = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const token = `${enc({ alg: 'none', kid: 'key-1' })}.${enc({ sub: 'x', aud: 'pipeline-service', iss: idp.issuer, exp: now() + 60 })}.`;
    const r = refusal(await v.validate(token));
    expect(r.reason).toBe('signature');
    expect(r.detail.message).toContain("'none'");
  });

  it('expired: exp in the past (beyond the clock tolerance)', async () => {
    const r = refusal(await v.validate(idp.mint({ exp: now() - 3600 })));
    expect(r.reason).toBe('expired');
    expect(r.detail.presentedIssuer).toBe(idp.issuer);
  });

  it('expired: a token without exp is refused', async () => {
    expect(refusal(await v.validate(idp.mint({ exp: null }))).reason).toBe('expired');
  });

  it('audience: compared as one exact string', async () => {
    for (const aud of ['other', 'Pipeline-Service', 'pipeline-service/', null]) {
      const r = refusal(await v.validate(idp.mint({ aud })));
      expect(r.reason).toBe('audience');
      expect(r.detail).toMatchObject({ expectedAudience: 'pipeline-service', presentedAudience: aud });
    }
  });

  it('issuer: exactly the issuer the authority publishes', async () => {
    for (const iss of ['http://evil.example', `${idp.issuer}/`, idp.issuerV2]) {
      const r = refusal(await v.validate(idp.mint({ iss })));
      expect(r.reason).toBe('issuer');
      expect(r.detail).toMatchObject({ expectedIssuer: idp.issuer, presentedIssuer: iss });
    }
  });

  it('not_configured: no audience or no authority', async () => {
    expect(refusal(await validatorFor(idp.authority, null).validator.validate(idp.mint())).reason).toBe('not_configured');
    const noAuthority = new TokenValidator({ authority: null, audience: 'x', discovery: probe });
    expect(refusal(await noAuthority.validate(idp.mint())).reason).toBe('not_configured');
  });

  describe('two token shapes (rule 7)', () => {
    it('version 1: authority + api://<client id> + v1 issuer', async () => {
      const { validator } = validatorFor(idp.authority, idp.audienceOf('1.0'));
      const r = await validator.validate(idp.mint({ version: '1.0' }));
      expect(r).toMatchObject({ ok: true, claims: { ver: '1.0', iss: idp.issuer, aud: `api://${idp.apiClientId}` } });
    });

    it('version 2: authority/v2.0 + <client id> + v2 issuer', async () => {
      const { validator, probe: p2 } = validatorFor(idp.authorityV2, idp.audienceOf('2.0'));
      const r = await validator.validate(idp.mint({ version: '2.0' }));
      expect(r).toMatchObject({ ok: true, claims: { ver: '2.0', iss: idp.issuerV2, aud: idp.apiClientId } });
      expect(p2.current()?.issuer).toBe(idp.issuerV2);
    });

    it('a v2 token against a v1 configuration: the audience refuses, expected beside presented', async () => {
      const { validator } = validatorFor(idp.authority, idp.audienceOf('1.0'));
      const r = refusal(await validator.validate(idp.mint({ version: '2.0' })));
      expect(r.reason).toBe('audience');
      const { message, ...detail } = r.detail;
      expect(detail).toEqual({
        expectedAuthority: idp.authority,
        expectedAudience: `api://${idp.apiClientId}`,
        expectedIssuer: idp.issuer,
        presentedAudience: idp.apiClientId,
        presentedIssuer: idp.issuerV2,
        presentedVersion: '2.0',
      });
      expect(message).toContain(`'api://${idp.apiClientId}'`);
    });

    it('correcting only the audience leaves the issuer refusing (the issuer follows the authority)', async () => {
      const { validator } = validatorFor(idp.authority, idp.audienceOf('2.0'));
      const r = refusal(await validator.validate(idp.mint({ version: '2.0' })));
      expect(r.reason).toBe('issuer');
      expect(r.detail).toMatchObject({
        expectedIssuer: idp.issuer,
        presentedIssuer: idp.issuerV2,
        presentedVersion: '2.0',
        expectedAudience: idp.apiClientId,
        presentedAudience: idp.apiClientId,
      });
    });

    it('a v1 token against a v2 configuration is refused too', async () => {
      const { validator } = validatorFor(idp.authorityV2, idp.audienceOf('2.0'));
      const r = refusal(await validator.validate(idp.mint({ version: '1.0' })));
      expect(r.reason).toBe('audience');
      expect(r.detail).toMatchObject({ presentedVersion: '1.0', expectedIssuer: idp.issuerV2, presentedIssuer: idp.issuer });
    });
  });
});

describe('authority outage and recovery', () => {
  let idp: OidcAuthority;
  afterAll(async () => {
    await idp.stop();
  });

  it('cached keys keep validating, uncached kids are temporarily_unavailable, the finding follows enforce and clears', async () => {
    idp = await OidcAuthority.start({ keyCount: 2 });
    const { validator, probe } = validatorFor(idp.authority, idp.defaultAudience, { enforce: true });
    // cacheMaxAge 1 ms: the cached key has to come from the stale fallback while the authority is down.
    const shortCache = validatorFor(idp.authority, idp.defaultAudience, { cacheMaxAgeMs: 1 });
    const advisoryProbe = new AuthorityProbe({ authority: idp.authority, enforce: false, timeoutMs: 2_000 });
    const limited = validatorFor(idp.authority, idp.defaultAudience, { requestsPerMinute: 2 });
    await Promise.all([probe.probeOnce(), advisoryProbe.probeOnce(), shortCache.probe.probeOnce(), limited.probe.probeOnce()]);
    expect((await limited.validator.validate(idp.mint({ kid: 'key-1' }))).ok).toBe(true);

    expect((await validator.validate(idp.mint({ kid: 'key-1' }))).ok).toBe(true);
    expect((await shortCache.validator.validate(idp.mint({ kid: 'key-1' }))).ok).toBe(true);

    await idp.stop();
    const [down, downAdvisory] = await Promise.all([probe.probeOnce(), advisoryProbe.probeOnce()]);
    expect(down.state).toBe('unreachable');
    expect(down.cause).toMatch(/ECONNREFUSED/);
    expect(downAdvisory.state).toBe('unreachable');

    const blocking = probe.finding();
    expect(blocking).toMatchObject({ subsystem: 'auth', severity: 'blocking', field: 'auth.authority' });
    expect(blocking?.reason).toContain(idp.authority);
    expect(blocking?.reason).toContain('ECONNREFUSED');
    expect(advisoryProbe.finding()).toMatchObject({ subsystem: 'auth', severity: 'advisory' });
    // Discovery is remembered while the authority is down.
    expect(probe.current()?.issuer).toBe(idp.issuer);

    expect((await validator.validate(idp.mint({ kid: 'key-1' }))).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect((await shortCache.validator.validate(idp.mint({ kid: 'key-1' }))).ok).toBe(true);

    const r = refusal(await validator.validate(idp.mint({ kid: 'key-2' })));
    expect(r.reason).toBe('temporarily_unavailable');
    expect(r.detail.message).toContain('/api/config/findings');
    expect(r.detail.expectedIssuer).toBe(idp.issuer);
    // Past the JWKS rate limit, the answer stays temporarily_unavailable while the authority is down
    // (the probe's pre-outage JWKS is not used as a key cache).
    await limited.probe.probeOnce();
    for (let i = 0; i < 3; i++) {
      expect(refusal(await limited.validator.validate(idp.mint({ kid: 'key-2' }))).reason).toBe('temporarily_unavailable');
    }

    await idp.restart();
    const up = await probe.probeOnce();
    await advisoryProbe.probeOnce();
    expect(up).toMatchObject({ state: 'reachable', cause: null });
    expect(probe.finding()).toBeNull();
    expect(advisoryProbe.finding()).toBeNull();
    expect((await validator.validate(idp.mint({ kid: 'key-2' }))).ok).toBe(true);
  });

  it('an authority never reached: temporarily_unavailable, and the probe finding names it', async () => {
    const closed = await OidcAuthority.start();
    const authority = closed.authority;
    await closed.stop();
    const { validator, probe } = validatorFor(authority, 'pipeline-service', { enforce: false });
    const r = refusal(await validator.validate(closed.mint()));
    expect(r.reason).toBe('temporarily_unavailable');
    expect(r.detail).toMatchObject({ expectedAuthority: authority, expectedIssuer: null, presentedIssuer: closed.issuer });
    expect(probe.status().state).toBe('unreachable');
    expect(probe.finding()?.severity).toBe('advisory');
  });

  it('a probe that gets no answer times out and says the state is unknown', async () => {
    const silent: Server = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const authority = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const probe = new AuthorityProbe({ authority, enforce: true, timeoutMs: 200 });
      const status = await probe.probeOnce();
      expect(status.state).toBe('unreachable');
      expect(status.cause).toMatch(/no answer within .* \(state unknown\)/);
      expect(probe.finding()?.severity).toBe('blocking');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a discovery document without jwks_uri is a cause, not a crash', async () => {
    const bad: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: 'x' }));
    });
    await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
    try {
      const authority = `http://127.0.0.1:${(bad.address() as AddressInfo).port}`;
      const status = await new AuthorityProbe({ authority, enforce: false }).probeOnce();
      expect(status).toMatchObject({ state: 'unreachable', discovery: null });
      expect(status.cause).toContain('no jwks_uri');
    } finally {
      bad.closeAllConnections();
      await new Promise((resolve) => bad.close(resolve));
    }
  });
});
