import { createPublicKey, type KeyObject } from 'node:crypto';
import jwt, { type Algorithm, type JwtPayload } from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import type { AuthorityDiscovery, DiscoverySource } from './authority-probe.js';

/**
 * Bearer-token validation (spec "Token validation"): signature (keys from the authority's
 * JWKS, cached), expiry, audience (one exact string) and issuer (exactly the issuer the
 * authority's discovery document publishes). No lists, prefixes or per-token adjustments.
 *
 * Keys: `jwks-rsa` with its cache on (per `kid`) and its rate limit on. A cached key keeps
 * validating while the authority is down: after `cacheMaxAgeMs` a failed refresh falls back
 * to the last fetched key for `staleFallbackMs` more. A token whose `kid` is not cached while
 * the authority cannot be reached is refused with `temporarily_unavailable`; a `kid` the
 * (reachable) authority does not publish is refused with `signature`.
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

  constructor(private readonly options: TokenValidatorOptions) {
    this.clockTolerance = options.clockToleranceSeconds ?? 60;
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

    let publicKey: string;
    try {
      publicKey = (await this.clientFor(discovery).getSigningKey(header.kid ?? null)).getPublicKey();
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      const rateLimited = name === 'JwksRateLimitError' && this.options.discovery.state() !== 'unreachable';
      // The JWKS rate limit is spent (a burst of unknown kids) while the authority is up: serve the
      // key from the JWKS the probe fetched last, so junk tokens cannot hold a rotated key out.
      const probed = rateLimited ? this.probedKey(header.kid ?? null) : null;
      if (probed !== null) {
        publicKey = probed;
      } else if (name === 'SigningKeyNotFoundError' || rateLimited) {
        // A kid the reachable authority does not publish.
        return refuse('signature', `the authority publishes no signing key ${header.kid ? `'${header.kid}'` : 'for this token (no kid)'}`);
      } else {
        return refuse(
          'temporarily_unavailable',
          `the signing keys of ${authority} cannot be fetched and key '${header.kid ?? ''}' is not cached (${errorMessage(err)}); see /api/config/findings`,
        );
      }
    }

    let verified: JwtPayload;
    try {
      const result = jwt.verify(token.trim(), this.keyObjectOf(publicKey), { algorithms: [alg], clockTolerance: this.clockTolerance });
      if (typeof result === 'string') return refuse('malformed', 'the token payload is not a JSON object');
      verified = result;
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) return refuse('expired', `the token expired at ${err.expiredAt.toISOString()}`);
      if (err instanceof jwt.NotBeforeError) return refuse('expired', `the token is not valid before ${err.date.toISOString()}`);
      const message = errorMessage(err);
      if (/malformed|invalid token|unexpected token|json/i.test(message)) return refuse('malformed', `the token is malformed (${message})`);
      return refuse('signature', `the token signature does not verify (${message})`);
    }
    if (typeof verified.exp !== 'number') return refuse('expired', 'the token carries no expiry (exp)');

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

  private probedKey(kid: string | null): string | null {
    const jwk = this.options.discovery.publishedKey(kid);
    if (!jwk) return null;
    try {
      return createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'pem', type: 'spki' }).toString();
    } catch {
      return null;
    }
  }

  private clientFor(discovery: AuthorityDiscovery): jwksRsa.JwksClient {
    if (this.client?.uri !== discovery.jwksUri) {
      const o = this.options.jwks ?? {};
      this.client = {
        uri: discovery.jwksUri,
        client: jwksRsa({
          jwksUri: discovery.jwksUri,
          cache: true,
          cacheMaxEntries: 50,
          cacheMaxAge: o.cacheMaxAgeMs ?? 10 * 60_000,
          cacheMaxAgeFallback: o.staleFallbackMs ?? 24 * 3_600_000,
          rateLimit: true,
          jwksRequestsPerMinute: o.requestsPerMinute ?? 10,
          timeout: o.timeoutMs ?? 5_000,
        }),
      };
    }
    return this.client.client;
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
