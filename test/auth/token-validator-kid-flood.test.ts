import { afterEach, describe, expect, it } from 'vitest';
import { AuthorityProbe } from '../../src/auth/authority-probe.js';
import { TokenValidator, type TokenValidationResult } from '../../src/auth/token-validator.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';

/**
 * Security review: jwks-rsa refreshes an expired cache entry through its rate limiter, so junk
 * kids sent during an outage used to spend the limit and lock out keys the server already held.
 * Short cache age and a small limit make the window reachable within a test.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const reasonOf = (r: TokenValidationResult) => (r.ok ? 'ok' : r.reason);

describe('junk-kid flood and the JWKS rate limit (real OIDC authority)', () => {
  let idp: OidcAuthority;
  afterEach(async () => {
    await idp?.stop();
  });

  async function setup() {
    idp = await OidcAuthority.start({ keyCount: 2 });
    const probe = new AuthorityProbe({ authority: idp.authority, enforce: true, timeoutMs: 1_000 });
    const validator = new TokenValidator({
      authority: idp.authority,
      audience: idp.defaultAudience,
      discovery: probe,
      jwks: { cacheMaxAgeMs: 1_000, requestsPerMinute: 3, timeoutMs: 500 },
    });
    await probe.probeOnce();
    return { probe, validator };
  }

  it('during an outage, past the cache age: junk kids cannot lock out a key already held', async () => {
    const { probe, validator } = await setup();
    expect(reasonOf(await validator.validate(idp.mint({ kid: 'key-1' })))).toBe('ok');
    await idp.stop();
    expect((await probe.probeOnce()).state).toBe('unreachable');
    await sleep(1_200);

    for (let i = 0; i < 10; i++) {
      expect(reasonOf(await validator.validate(idp.mint({ foreignKey: true, kid: `junk-${i}` })))).toBe('temporarily_unavailable');
    }
    expect(reasonOf(await validator.validate(idp.mint({ kid: 'key-1' })))).toBe('ok');
    // A published key never used before the outage is still not held (spec rule 6).
    expect(reasonOf(await validator.validate(idp.mint({ kid: 'key-2' })))).toBe('temporarily_unavailable');
    // A held kid signed by another key still fails on the signature.
    expect(reasonOf(await validator.validate(idp.mint({ foreignKey: true, kid: 'key-1' })))).toBe('signature');
  });

  it('a limit spent while reachable does not outlive the outage that follows', async () => {
    const { probe, validator } = await setup();
    expect(reasonOf(await validator.validate(idp.mint({ kid: 'key-1' })))).toBe('ok');
    const before = idp.jwksRequests();
    const junk = [];
    for (let i = 0; i < 6; i++) junk.push(reasonOf(await validator.validate(idp.mint({ foreignKey: true, kid: `junk-${i}` }))));
    // The first three are fetched and not published; past the limit an unknown kid is retryable.
    expect(junk).toEqual(['signature', 'signature', 'signature', 'temporarily_unavailable', 'temporarily_unavailable', 'temporarily_unavailable']);
    expect(idp.jwksRequests() - before).toBe(3);
    // Published keys come from the probe's JWKS: no fetch, whatever the limit.
    expect(reasonOf(await validator.validate(idp.mint({ kid: 'key-2' })))).toBe('ok');
    expect(idp.jwksRequests() - before).toBe(3);

    await idp.stop();
    expect((await probe.probeOnce()).state).toBe('unreachable');
    await sleep(1_200);
    expect(reasonOf(await validator.validate(idp.mint({ kid: 'key-1' })))).toBe('ok');
    expect(reasonOf(await validator.validate(idp.mint({ kid: 'key-2' })))).toBe('ok');
  });
});
