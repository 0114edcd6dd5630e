import type { TokenRefusalDetail, TokenRefusalReason } from './token-validator.js';

const REALM = 'pipeline-service';
const FINDINGS_ROUTE = '/api/config/findings';

/** RFC 6750 challenge: no error code without a token; `temporarily_unavailable` while the authority is down. */
export function wwwAuthenticate(reason: TokenRefusalReason): string {
  if (reason === 'missing') return `Bearer realm="${REALM}"`;
  if (reason === 'temporarily_unavailable') {
    return `Bearer realm="${REALM}", error="temporarily_unavailable", error_description="token authority unreachable; see ${FINDINGS_ROUTE}"`;
  }
  return `Bearer realm="${REALM}", error="invalid_token", error_description="${reason}"`;
}

export interface UnauthorizedBody {
  error: string;
  reason: TokenRefusalReason;
  message: string;
  /** Which check refused and why: expected authority/audience/issuer beside what the token carried. */
  detail: TokenRefusalDetail | null;
  /** Where the cause is reported, when the refusal is the server's side (authority unreachable). */
  findings?: string;
}

export function unauthorizedBody(reason: TokenRefusalReason, detail: TokenRefusalDetail | null): UnauthorizedBody {
  const body: UnauthorizedBody = {
    error: reason === 'temporarily_unavailable' ? 'temporarily_unavailable' : 'unauthorized',
    reason,
    message: detail?.message ?? 'no valid bearer token',
    detail,
  };
  if (reason === 'temporarily_unavailable' || reason === 'not_configured') body.findings = FINDINGS_ROUTE;
  return body;
}
