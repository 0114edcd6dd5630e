import type { IncomingHttpHeaders } from 'node:http';
import { header } from '../payload-reader.js';
import { type SignatureVerdict, constantTimeEquals, secretUnset } from '../webhook-signature.js';

const BASIC = /^basic\s+([A-Za-z0-9+/]+={0,2})$/i;

/**
 * Platform C (Azure DevOps service hooks): `Authorization: Basic base64(user:password)`.
 *
 * The configured credential (PLATFORM_C_WEBHOOK_SECRET, `webhooks.platform_c_secret`) is either
 *  - the password alone: any user name is accepted when the password equals it, or
 *  - `user:password`: the decoded header must equal it exactly.
 * Both comparisons are always made, in constant time, and either match accepts; accepting the
 * password form never weakens the `user:password` form, since matching it requires presenting
 * the whole configured value as the password. No secret configured → `skipped`
 * (spec: "requests without the header pass only when the variable is unset").
 */
export function verifyAzureDevOpsBasicAuth(
  headers: IncomingHttpHeaders,
  _rawBody: Buffer,
  secret: string | null,
): SignatureVerdict {
  if (secretUnset(secret)) return 'skipped';
  const authorization = header(headers, 'authorization');
  if (authorization === null) return 'missing';
  const match = BASIC.exec(authorization);
  const encoded = match?.[1];
  if (encoded === undefined || encoded.length % 4 !== 0) return 'invalid';
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'invalid';
  const password = decoded.slice(colon + 1);
  const wholeMatches = constantTimeEquals(decoded, secret);
  const passwordMatches = constantTimeEquals(password, secret);
  return wholeMatches || passwordMatches ? 'ok' : 'invalid';
}
