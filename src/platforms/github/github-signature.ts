import type { IncomingHttpHeaders } from 'node:http';
import { header } from '../payload-reader.js';
import { type SignatureVerdict, secretUnset, verifySha256Header } from '../webhook-signature.js';

export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';

/**
 * Platform A (GitHub): `X-Hub-Signature-256: sha256=<hex HMAC-SHA-256 of the raw body>`,
 * compared in constant time. The legacy SHA-1 `X-Hub-Signature` header is not accepted.
 */
export function verifyGitHubSignature(
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  secret: string | null,
): SignatureVerdict {
  if (secretUnset(secret)) return 'skipped';
  return verifySha256Header(header(headers, GITHUB_SIGNATURE_HEADER), secret, rawBody);
}
