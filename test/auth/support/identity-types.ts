import type { Finding } from '../../../src/findings/finding.js';
import type { TokenRefusalDetail, TokenRefusalReason } from '../../../src/auth/token-validator.js';

/** Body of GET /api/identity for a validated caller (spec "Identity response"). */
export interface IdentityBody {
  authenticated: true;
  subject: string;
  issuer: string;
  roleClaim: string;
  groupClaim: string;
  roleClaimValues: string[];
  groupClaimValues: string[];
  roles: string[];
  permissions: string[];
  findings: Finding[];
}

/** Body of GET /api/identity when the token was refused (enforcement off). */
export interface IdentityRefusalBody {
  authenticated: false;
  refusal: { reason: TokenRefusalReason; detail: TokenRefusalDetail | null; message: string };
  findings: Finding[];
}

/** Body of a 401. */
export interface UnauthorizedResponse {
  error: string;
  reason: TokenRefusalReason;
  message: string;
  detail: TokenRefusalDetail | null;
  findings?: string;
}

export interface FindingsBody {
  degraded: boolean;
  blocking: number;
  advisory: number;
  findings: Finding[];
}
