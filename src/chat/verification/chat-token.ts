import jwt, { type JwtPayload } from 'jsonwebtoken';
import { KeySetUnavailableError, type PublishedKey, type RemoteKeySet } from './remote-key-set.js';

/**
 * What the chat platforms' token verifiers share: reading the bearer, decoding the header, finding
 * the key in the publisher's set, and the checks of `jsonwebtoken` (RS256 only, issuer, audience,
 * `exp`/`nbf` with a tolerance). Each verifier adds its platform's own claim rules on top.
 */

export const ChatTokenRefusal = {
  /** No `Authorization: Bearer …` header. */
  Missing: 'missing',
  /** Not a JWT, or a header without the fields needed. */
  Malformed: 'malformed',
  /** Unknown key, foreign signature or an algorithm other than RS256. */
  Signature: 'signature',
  Issuer: 'issuer',
  Audience: 'audience',
  /** Outside `nbf`…`exp` (after the tolerance). */
  Expired: 'expired',
  /** A platform rule on the token's claims against the request (Bot Framework: `serviceurl`, endorsements). */
  Claims: 'claims',
  /** The publisher's keys could not be fetched and none are held. */
  KeysUnavailable: 'keys_unavailable',
} as const;
export type ChatTokenRefusal = (typeof ChatTokenRefusal)[keyof typeof ChatTokenRefusal];

export type ChatTokenVerdict =
  | { ok: true; claims: JwtPayload }
  | { ok: false; reason: ChatTokenRefusal; message: string };

export function refused(reason: ChatTokenRefusal, message: string): ChatTokenVerdict {
  return { ok: false, reason, message };
}

/** The token of an `Authorization: Bearer <token>` header; null when there is none. */
export function bearerOf(authorization: string | null | undefined): string | null {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1] ?? null;
}

export interface JwtChecks {
  /** A function when the issuer is learnt with the keys (read after the key lookup). */
  issuer: string | (() => string);
  audience: string;
  clockToleranceSeconds: number;
}

/** Signature, issuer, audience and lifetime; the key found is returned for platform rules. */
export async function verifyWithKeySet(
  token: string | null,
  keys: RemoteKeySet,
  checks: JwtChecks,
): Promise<{ verdict: ChatTokenVerdict; key: PublishedKey | null }> {
  if (!token) return { verdict: refused(ChatTokenRefusal.Missing, 'no bearer token was presented'), key: null };
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string') {
    return { verdict: refused(ChatTokenRefusal.Malformed, 'the bearer token is not a JWT'), key: null };
  }
  if (decoded.header.alg !== 'RS256') {
    return { verdict: refused(ChatTokenRefusal.Signature, `signing algorithm '${decoded.header.alg}' is not accepted`), key: null };
  }
  let key: PublishedKey | null;
  try {
    key = await keys.keyFor(decoded.header.kid ?? null);
  } catch (error) {
    if (error instanceof KeySetUnavailableError) return { verdict: refused(ChatTokenRefusal.KeysUnavailable, error.message), key: null };
    throw error;
  }
  if (!key) return { verdict: refused(ChatTokenRefusal.Signature, `no published signing key '${decoded.header.kid ?? ''}'`), key: null };
  try {
    const claims = jwt.verify(token, key.key, {
      algorithms: ['RS256'],
      issuer: typeof checks.issuer === 'function' ? checks.issuer() : checks.issuer,
      audience: checks.audience,
      clockTolerance: checks.clockToleranceSeconds,
      complete: false,
    }) as JwtPayload;
    return { verdict: { ok: true, claims }, key };
  } catch (error) {
    return { verdict: refusalOf(error as Error), key };
  }
}

function refusalOf(error: Error): ChatTokenVerdict {
  const message = error.message;
  if (error.name === 'TokenExpiredError' || error.name === 'NotBeforeError') return refused(ChatTokenRefusal.Expired, message);
  if (message.startsWith('jwt issuer invalid')) return refused(ChatTokenRefusal.Issuer, message);
  if (message.startsWith('jwt audience invalid')) return refused(ChatTokenRefusal.Audience, message);
  if (message.includes('signature') || message.includes('algorithm')) return refused(ChatTokenRefusal.Signature, message);
  return refused(ChatTokenRefusal.Malformed, message);
}
