import type { IncomingHttpHeaders } from 'node:http';
import { firstHeader } from '../payload-reader.js';
import { type SignatureVerdict, constantTimeEquals, secretUnset } from '../webhook-signature.js';

/** Either name is accepted; the neutral one wins when both are sent. */
export const GITLAB_TOKEN_HEADERS = ['x-platformb-token', 'x-gitlab-token'] as const;

/**
 * Platform B (GitLab): the plain secret token in `X-PlatformB-Token` or `X-Gitlab-Token`,
 * compared in constant time. GitLab signs nothing, so the body is not read; the parameter keeps
 * every verifier's signature the same.
 */
export function verifyGitLabToken(
  headers: IncomingHttpHeaders,
  _rawBody: Buffer,
  secret: string | null,
): SignatureVerdict {
  if (secretUnset(secret)) return 'skipped';
  const token = firstHeader(headers, ...GITLAB_TOKEN_HEADERS);
  if (token === null) return 'missing';
  return constantTimeEquals(token, secret) ? 'ok' : 'invalid';
}
