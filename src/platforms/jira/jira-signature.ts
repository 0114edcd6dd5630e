import type { IncomingHttpHeaders } from 'node:http';
import { header } from '../payload-reader.js';
import { type SignatureVerdict, secretUnset, verifySha256Header } from '../webhook-signature.js';

export const JIRA_SIGNATURE_HEADER = 'x-hub-signature';

/**
 * Platform D (Jira): optional `X-Hub-Signature: sha256=<hex HMAC-SHA-256 of the raw body>` with
 * the secret of the project the delivery routes to (`platform_d_trigger.secret`). Once that
 * project carries a secret, every delivery must carry a matching header (spec: 401 otherwise).
 * The caller resolves the project from the parsed body first, then verifies with its secret.
 */
export function verifyJiraSignature(
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  secret: string | null,
): SignatureVerdict {
  if (secretUnset(secret)) return 'skipped';
  return verifySha256Header(header(headers, JIRA_SIGNATURE_HEADER), secret, rawBody);
}
