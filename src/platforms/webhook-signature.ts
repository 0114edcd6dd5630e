import { type KeyObject, createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Outcome of a webhook secret check:
 * - `ok`: a secret is configured and the delivery proves it;
 * - `skipped`: no secret is configured (null or empty), so nothing is verified (spec step 1);
 * - `missing`: a secret is configured and the delivery carries no credential header;
 * - `invalid`: a credential header is present but wrong or malformed.
 * Only `ok` and `skipped` may proceed; the route answers 401 for the other two.
 */
export type SignatureVerdict = 'ok' | 'skipped' | 'missing' | 'invalid';

/** Whether the verdict lets the delivery through. */
export function signatureAccepted(verdict: SignatureVerdict): boolean {
  return verdict === 'ok' || verdict === 'skipped';
}

/** Per-process key: comparisons digest both sides with it so no input shape is precomputable. */
const COMPARE_KEY = createSecretKey(randomBytes(32));

/** Key objects of the configured secrets, built once: importing a key costs more than the HMAC. */
const SECRET_KEYS = new Map<string, KeyObject>();
const MAX_CACHED_SECRETS = 64;

function keyOf(secret: string): KeyObject {
  let key = SECRET_KEYS.get(secret);
  if (!key) {
    if (SECRET_KEYS.size >= MAX_CACHED_SECRETS) SECRET_KEYS.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    SECRET_KEYS.set(secret, key);
  }
  return key;
}

/**
 * Constant-time string equality. Both sides are first digested (HMAC-SHA-256 under a random
 * per-process key) into equal-length 32-byte values, and those are compared with
 * `timingSafeEqual`; the time taken therefore depends on neither side's content nor length
 * difference (beyond hashing the inputs, which reveals only their length).
 */
export function constantTimeEquals(presented: string, expected: string): boolean {
  const a = createHmac('sha256', COMPARE_KEY).update(presented, 'utf8').digest();
  const b = createHmac('sha256', COMPARE_KEY).update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Lower-case hex HMAC-SHA-256 of the raw request bytes. */
export function hmacSha256Hex(secret: string, rawBody: Buffer): string {
  return createHmac('sha256', keyOf(secret)).update(rawBody).digest('hex');
}

/** True when a configured secret is absent or empty (verification is skipped). */
export function secretUnset(secret: string | null | undefined): secret is null | undefined | '' {
  return secret === null || secret === undefined || secret === '';
}

/**
 * Verifies a `sha256=<hex>` header value against the HMAC of `rawBody`. The prefix is matched
 * case-insensitively and the hex in either case; a wrong-length or non-hex value simply fails the
 * constant-time comparison.
 */
export function verifySha256Header(value: string | null, secret: string, rawBody: Buffer): SignatureVerdict {
  if (value === null) return 'missing';
  const presented = value.toLowerCase();
  const expected = `sha256=${hmacSha256Hex(secret, rawBody)}`;
  return constantTimeEquals(presented, expected) ? 'ok' : 'invalid';
}
