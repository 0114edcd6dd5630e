import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import jwt, { type Algorithm, type JwtPayload } from 'jsonwebtoken';
import type jwksRsa from 'jwks-rsa';
import type { AuthorityDiscovery, DiscoverySource } from './authority-probe.js';

/**
 * Bearer-token validation (spec "Token validation"): signature (keys from the authority's
 * JWKS, cached), expiry, audience (one exact string) and issuer (exactly the issuer the
 * authority's discovery document publishes). No lists, prefixes or per-token adjustments.
 *
 * Keys, in order: while the authority is reachable, the JWKS its last probe fetched (≤ 30 s old,
 * costs no fetch); then `jwks-rsa` (cache per `kid`, rate limit on) for a kid the probe has not
 * seen, e.g. a key rotated in since. Every key obtained either way is remembered as last-good
 * for `cacheMaxAgeMs + staleFallbackMs`, and serves whenever the JWKS cannot be asked: the
 * authority is unreachable (no fetch is spent on an unknown kid then) or the rate limit is spent.
 * That matters because jwks-rsa's refresh of an expired cache entry passes its rate limiter, so
 * a burst of junk kids during an outage would otherwise lock out keys it already held.
 * Refusals: a kid the server does not hold while it cannot ask the authority (unreachable, or
 * rate limit spent) is `temporarily_unavailable` (retryable); a kid the reachable authority does
 * not publish is `signature`. The probe's pre-outage JWKS alone is not a key cache (spec rule 6):
 * a kid never used before the outage stays `temporarily_unavailable`.
 */

export const TokenRefusalReason = {
  Missing: 'missing',
  Malformed: 'malformed',
  Signature: 'signature',
  Expired: 'expired',
  Audience: 'audience',
  Issuer: 'issuer',
  TemporarilyUnavailable: 'temporarily_unavailable',
  NotConfigured: 'not_configured',
} as const;
export type TokenRefusalReason = (typeof TokenRefusalReason)[keyof typeof TokenRefusalReason];

export type TokenVersion = '1.0' | '2.0';

/** What the identity page shows beside a refusal: expected settings vs what the token carried. */
export interface TokenRefusalDetail {
  expectedAuthority: string | null;
  expectedAudience: string | null;
  /** The issuer the authority publishes; null when it was never reached. */
  expectedIssuer: string | null;
  /** Unverified `aud` of the presented token (a string, or the array it carried). */
  presentedAudience: string | string[] | null;
  presentedIssuer: string | null;
  /** From the `ver` claim. */
  presentedVersion: TokenVersion | null;
  /** One human-readable sentence on why. */
  message: string;
}

export type TokenValidationResult =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; reason: TokenRefusalReason; detail: TokenRefusalDetail };

export interface TokenValidatorOptions {
  authority: string | null;
  audience: string | null;
  /** Usually the `AuthorityProbe` for the same authority. */
  discovery: DiscoverySource;
  /** Allowed clock skew for `exp`/`nbf`. Default 60 s. */
  clockToleranceSeconds?: number;
  jwks?: {
    /** How long a fetched key is trusted before a refresh is attempted. Default 10 min. */
    cacheMaxAgeMs?: number;
    /** How long past `cacheMaxAgeMs` a key is still served while the JWKS cannot be fetched. Default 24 h. */
    staleFallbackMs?: number;
    /** JWKS fetches per minute for unknown `kid`s. Default 10. */
    requestsPerMinute?: number;
    /** Per JWKS request. Default 5 s. */
    timeoutMs?: number;
  };
}

const DEFAULT_CACHE_MAX_AGE_MS = 10 * 60_000;
/** Leeway on exp / nbf for clocks that disagree; the hub times its expiry check with it too. */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 60;
const DEFAULT_STALE_FALLBACK_MS = 24 * 3_600_000;

/** Asymmetric algorithms only: `none` and HMAC (which would take the public key as a secret) are never accepted. */
const ACCEPTED_ALGORITHMS: readonly Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

/** The token of an `Authorization: Bearer <token>` header; null when there is none. */
export function bearerTokenOf(authorization: string | readonly string[] | null | undefined): string | null {
  const header = Array.isArray(authorization) ? authorization[0] : authorization;
  if (typeof header !== 'string') return null;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export class TokenValidator {
  private readonly clockTolerance: number;
  private client: { uri: string; client: jwksRsa.JwksClient } | null = null;
  /** Parsed keys by PEM: verifying against a KeyObject costs less than half of re-parsing the PEM per request. */
  private readonly keyObjects = new Map<string, KeyObject>();
  private readonly probedPems = new WeakMap<JsonWebKey, string | null>();
  private readonly lastGood: LastGoodKeys;

  constructor(private readonly options: TokenValidatorOptions) {
    this.clockTolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    const jwks = options.jwks ?? {};
    this.lastGood = new LastGoodKeys((jwks.cacheMaxAgeMs ?? DEFAULT_CACHE_MAX_AGE_MS) + (jwks.staleFallbackMs ?? DEFAULT_STALE_FALLBACK_MS));
  }

  async validate(token: string | null | undefined): Promise<TokenValidationResult> {
    const { authority, audience } = this.options;
    const known = this.options.discovery.current();
    const base: Omit<TokenRefusalDetail, 'message'> = {
      expectedAuthority: authority,
      expectedAudience: audience,
      expectedIssuer: known?.issuer ?? null,
      presentedAudience: null,
      presentedIssuer: null,
      presentedVersion: null,
    };
    // `base` fills in as validation learns more; each refusal copies it as it stands.
    const refuse = (reason: TokenRefusalReason, message: string): TokenValidationResult => ({
      ok: false,
      reason,
      detail: { ...base, message },
    });

    if (!authority || !audience) return refuse('not_configured', 'no token authority and audience are configured (auth.authority, auth.audience)');
    if (token == null || token.trim() === '') return refuse('missing', 'no bearer token was presented');

    const decoded = decodeUnverified(token.trim());
    if (!decoded) return refuse('malformed', 'the bearer token is not a signed JWT');
    const { header, payload } = decoded;
    base.presentedAudience = audienceOf(payload.aud);
    base.presentedIssuer = typeof payload.iss === 'string' ? payload.iss : null;
    base.presentedVersion = payload['ver'] === '1.0' || payload['ver'] === '2.0' ? payload['ver'] : null;

    const discovery = await this.options.discovery.ensure();
    if (!discovery) {
      return refuse('temporarily_unavailable', `the token authority ${authority} has not answered yet; see /api/config/findings`);
    }
    base.expectedIssuer = discovery.issuer;

    const alg = header.alg as Algorithm;
    if (!ACCEPTED_ALGORITHMS.includes(alg)) return refuse('signature', `signing algorithm '${header.alg}' is not accepted`);

    const key = await this.signingKeyOf(discovery, header.kid ?? null);
    if (key.kind === 'not_published') {
      return refuse('signature', `the authority publishes no signing key ${header.kid ? `'${header.kid}'` : 'for this token (no kid)'}`);
    }
    if (key.kind === 'unavailable') {
      return refuse(
        'temporarily_unavailable',
        `the signing keys of ${authority} cannot be fetched and key '${header.kid ?? ''}' is not cached (${key.cause}); see /api/config/findings`,
      );
    }
    const publicKey = key.pem;

    let verified: JwtPayload;
    try {
      const result = jwt.verify(token.trim(), this.keyObjectOf(publicKey), { algorithms: [alg], clockTolerance: this.clockTolerance });
      if (typeof result === 'string') return refuse('malformed', 'the token payload is not a JSON object');
      verified = result;
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) return refuse('expired', `the token expired at ${err.expiredAt.toISOString()}`);
      if (err instanceof jwt.NotBeforeError) return refuse('expired', `the token is not valid before ${err.date.toISOString()}`);
      const message = errorMessage(err);
      // `invalid exp value` etc.: a claim of the wrong type, after the signature verified.
      if (/malformed|invalid token|unexpected token|json|invalid (exp|nbf|iat) value/i.test(message)) {
        return refuse('malformed', `the token is malformed (${message})`);
      }
      return refuse('signature', `the token signature does not verify (${message})`);
    }
    if (typeof verified.exp !== 'number') return refuse('expired', 'the token carries no expiry (exp)');
    // Without a subject every such caller would merge into one observed identity.
    if (typeof verified.sub !== 'string' || verified.sub === '') return refuse('malformed', 'the token carries no subject (sub)');

    const aud = verified.aud;
    const audOk = typeof aud === 'string' ? aud === audience : Array.isArray(aud) && aud.includes(audience);
    if (!audOk) {
      return refuse(
        'audience',
        `the token's audience ${describe(base.presentedAudience)} is not the configured audience '${audience}'`,
      );
    }
    if (verified.iss !== discovery.issuer) {
      return refuse(
        'issuer',
        `the token's issuer ${describe(base.presentedIssuer)} is not '${discovery.issuer}', the issuer ${authority} publishes; the issuer follows the authority`,
      );
    }
    return { ok: true, claims: { ...verified } };
  }

  private keyObjectOf(pem: string): KeyObject {
    let key = this.keyObjects.get(pem);
    if (!key) {
      if (this.keyObjects.size >= 50) this.keyObjects.clear(); // bounded like the JWKS cache
      key = createPublicKey(pem);
      this.keyObjects.set(pem, key);
    }
    return key;
  }

  /** See the header comment for the order; never throws. */
  private async signingKeyOf(discovery: AuthorityDiscovery, kid: string | null): Promise<KeyLookup> {
    const reachable = this.options.discovery.state() !== 'unreachable';
    const probed = reachable ? this.probedKey(kid) : null;
    if (probed !== null) return { kind: 'found', pem: this.lastGood.remember(kid, probed) };
    if (!reachable) {
      const held = this.lastGood.get(kid);
      return held !== null ? { kind: 'found', pem: held } : { kind: 'unavailable', cause: 'the authority is unreachable' };
    }
    try {
      const pem = (await this.clientFor(discovery, await loadJwksRsa()).getSigningKey(kid)).getPublicKey();
      return { kind: 'found', pem: this.lastGood.remember(kid, pem) };
    } catch (err) {
      if (err instanceof Error && err.name === 'SigningKeyNotFoundError') {
        this.lastGood.forget(kid);
        return { kind: 'not_published' };
      }
      // Rate limit spent or fetch failed: a key we hold still serves; an unknown kid may be a
      // freshly rotated key, so the answer is retryable rather than `signature`.
      const held = this.lastGood.get(kid);
      return held !== null ? { kind: 'found', pem: held } : { kind: 'unavailable', cause: errorMessage(err) };
    }
  }

  private probedKey(kid: string | null): string | null {
    const jwk = this.options.discovery.publishedKey(kid);
    if (!jwk) return null;
    // The probe hands out the same objects until its next fetch: convert each once.
    const cached = this.probedPems.get(jwk);
    if (cached !== undefined) return cached;
    let pem: string | null;
    try {
      pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'pem', type: 'spki' }).toString();
    } catch {
      pem = null;
    }
    this.probedPems.set(jwk, pem);
    return pem;
  }

  private clientFor(discovery: AuthorityDiscovery, create: typeof jwksRsa): jwksRsa.JwksClient {
    if (this.client?.uri !== discovery.jwksUri) {
      const o = this.options.jwks ?? {};
      this.client = {
        uri: discovery.jwksUri,
        client: create({
          jwksUri: discovery.jwksUri,
          cache: true,
          cacheMaxEntries: 50,
          cacheMaxAge: o.cacheMaxAgeMs ?? DEFAULT_CACHE_MAX_AGE_MS,
          cacheMaxAgeFallback: o.staleFallbackMs ?? DEFAULT_STALE_FALLBACK_MS,
          rateLimit: true,
          jwksRequestsPerMinute: o.requestsPerMinute ?? 10,
          timeout: o.timeoutMs ?? 5_000,
        }),
      };
    }
    return this.client.client;
  }
}

let jwksRsaModule: typeof jwksRsa | null = null;

/** jwks-rsa (with jose under it) loads with the first key the discovery probe did not have, not at boot. */
async function loadJwksRsa(): Promise<typeof jwksRsa> {
  jwksRsaModule ??= (await import('jwks-rsa')).default;
  return jwksRsaModule;
}

type KeyLookup = { kind: 'found'; pem: string } | { kind: 'not_published' } | { kind: 'unavailable'; cause: string };

/**
 * Keys the server obtained from the authority (probe JWKS or jwks-rsa), by kid, each trusted for
 * `maxAgeMs` after it was last obtained. Bounded like the JWKS cache.
 */
class LastGoodKeys {
  private readonly keys = new Map<string | null, { pem: string; at: number }>();

  constructor(private readonly maxAgeMs: number) {}

  remember(kid: string | null, pem: string): string {
    this.keys.delete(kid); // re-insert: Map order is then oldest-first for eviction
    if (this.keys.size >= 50) this.keys.delete(this.keys.keys().next().value as string | null);
    this.keys.set(kid, { pem, at: Date.now() });
    return pem;
  }

  get(kid: string | null): string | null {
    const entry = this.keys.get(kid);
    return entry && Date.now() - entry.at <= this.maxAgeMs ? entry.pem : null;
  }

  forget(kid: string | null): void {
    this.keys.delete(kid);
  }
}

interface DecodedToken {
  header: { alg: string; kid?: string };
  payload: JwtPayload;
}

function decodeUnverified(token: string): DecodedToken | null {
  if (token.split('.').length !== 3) return null;
  let decoded: jwt.Jwt | null;
  try {
    decoded = jwt.decode(token, { complete: true });
  } catch {
    return null;
  }
  if (!decoded || typeof decoded.payload !== 'object' || decoded.payload === null) return null;
  const { alg, kid } = decoded.header;
  if (typeof alg !== 'string') return null;
  return { header: typeof kid === 'string' ? { alg, kid } : { alg }, payload: decoded.payload };
}

function audienceOf(aud: unknown): string | string[] | null {
  if (typeof aud === 'string') return aud;
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string');
  return null;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message || err.name;
  }
  if (typeof err === 'object' && err !== null && 'errorMsg' in err) return String((err as { errorMsg: unknown }).errorMsg);
  return String(err);
}

function describe(value: string | string[] | null): string {
  if (value === null) return '(none)';
  return Array.isArray(value) ? `[${value.map((v) => `'${v}'`).join(', ')}]` : `'${value}'`;
}
