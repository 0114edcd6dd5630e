import type { Finding } from '../findings/finding.js';
import type { Permission } from './permission.js';
import type { RoleResolution, RoleSource } from './role-resolution.js';

/** Attribution of a change made without a principal (spec "Attribution"). */
export const ANONYMOUS_ATTRIBUTION = 'dashboard';

/** A validated, resolved caller: what the guard attaches to the request and `/api/identity` shows. */
export interface Principal {
  /** The token's `sub`: never empty, the validator refuses a token without one (`malformed`). */
  subject: string;
  /** The token's issuer (equal to the authority's discovered issuer). */
  issuer: string;
  /** Token version from the `ver` claim, when it carries one. */
  tokenVersion: '1.0' | '2.0' | null;
  roleClaim: string;
  groupClaim: string;
  nameClaim: string;
  /** Value of the name claim, or null when the token lacks it. */
  nameClaimValue: string | null;
  roleClaimValues: string[];
  groupClaimValues: string[];
  roles: string[];
  permissions: Permission[];
  roleSources: RoleSource[];
  findings: Finding[];
  /** The validated claims, as the provider issued them. */
  claims: Readonly<Record<string, unknown>>;
}

export interface PrincipalInput {
  claims: Readonly<Record<string, unknown>>;
  roleClaim: string;
  groupClaim: string;
  nameClaim: string;
  resolution: RoleResolution;
}

/** Assembles a principal from validated claims and their resolution. */
export function principalOf(input: PrincipalInput): Principal {
  const { claims, resolution } = input;
  const ver = claims['ver'];
  return {
    subject: resolution.subject ?? '',
    issuer: typeof claims['iss'] === 'string' ? claims['iss'] : '',
    tokenVersion: ver === '1.0' || ver === '2.0' ? ver : null,
    roleClaim: input.roleClaim,
    groupClaim: input.groupClaim,
    nameClaim: input.nameClaim,
    nameClaimValue: resolution.nameClaimValue,
    roleClaimValues: resolution.roleClaimValues,
    groupClaimValues: resolution.groupClaimValues,
    roles: resolution.roles,
    permissions: resolution.permissions,
    roleSources: resolution.roleSources,
    findings: resolution.findings,
    claims,
  };
}

/** Body of `GET /api/identity` (spec "Identity response"). */
export interface IdentityResponse {
  authenticated: boolean;
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

export function identityResponseOf(p: Principal): IdentityResponse {
  return {
    authenticated: true,
    subject: p.subject,
    issuer: p.issuer,
    roleClaim: p.roleClaim,
    groupClaim: p.groupClaim,
    roleClaimValues: p.roleClaimValues,
    groupClaimValues: p.groupClaimValues,
    roles: p.roles,
    permissions: p.permissions,
    findings: p.findings,
  };
}

/**
 * Who a change is attributed to: the caller's name-claim value; `dashboard` when there is no
 * principal, or the principal's token carries no (non-empty) name-claim value.
 */
export function attributionOf(principal: Principal | null | undefined): string {
  const name = principal?.nameClaimValue;
  return name != null && name !== '' ? name : ANONYMOUS_ATTRIBUTION;
}

/** Permissions of `required` the principal lacks (several permissions on a route are required together). */
export function missingPermissions(principal: Principal | null, required: readonly Permission[]): Permission[] {
  const held = new Set<string>(principal?.permissions ?? []);
  return required.filter((p) => !held.has(p));
}
