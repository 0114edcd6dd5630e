import type { Finding } from '../findings/finding.js';
import type { TokenRefusalDetail, TokenRefusalReason } from './token-validator.js';

/** Shown instead of an identity when the token was refused (enforcement off) or nothing authenticates. */
export interface IdentityRefusal {
  authenticated: false;
  refusal: { reason: TokenRefusalReason; detail: TokenRefusalDetail | null; message: string };
  findings: Finding[];
}
