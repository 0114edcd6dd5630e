import { finding, FindingSubsystem, type Finding } from '../findings/finding.js';
import { BuiltInRole, builtInRoleOf, foldRoleName } from './built-in-roles.js';
import { isPermission, type Permission } from './permission.js';
import {
  normalizeGroupValue,
  parseAdminGrant,
  type AccessDocument,
  type AdminGrantInput,
  type ClaimNames,
} from './role-resolution.js';

/**
 * Pure validators for writes to the access document (spec "Roles and permissions" rules 9–11).
 * They return typed results; nothing here throws for a refusal.
 */

// ---------------------------------------------------------------- custom role save (rule 9)

export interface CustomRoleSave {
  name: string;
  permissions: readonly string[];
}

export type CustomRoleSaveRefusal =
  | { code: 'invalid_name'; message: string }
  | { code: 'builtin_name'; message: string; builtInRole: BuiltInRole }
  | { code: 'unknown_permission'; message: string; unknownPermissions: string[] };

export type CustomRoleSaveResult =
  | {
      ok: true;
      /** What to store: the folded name and the de-duplicated, sorted permission list. */
      role: { name: string; permissions: string[] };
      /** Stored permission names outside the catalog that the save kept unchanged (legacy). */
      legacyPermissions: string[];
    }
  | { ok: false; refusal: CustomRoleSaveRefusal };

/**
 * Validates saving a custom role against the current custom roles. A name that folds to a
 * built-in is refused; a permission outside the catalog (compared exactly) is refused, but
 * only when the save adds it: a legacy name already stored on that role is kept as is.
 */
export function validateCustomRoleSave(
  save: CustomRoleSave,
  existing: Readonly<Record<string, readonly string[]>>,
): CustomRoleSaveResult {
  const name = foldRoleName(save.name);
  if (name === '') return refuse({ code: 'invalid_name', message: 'a role needs a name' });
  const builtIn = builtInRoleOf(name);
  if (builtIn !== null) {
    return refuse({
      code: 'builtin_name',
      builtInRole: builtIn,
      message: `'${save.name}' collides with the built-in role '${builtIn}'; built-in roles cannot be redefined`,
    });
  }
  const before = new Set(previousPermissions(name, existing));
  const after = [...new Set(save.permissions)];
  const unknown = after.filter((p) => !before.has(p) && !isPermission(p));
  if (unknown.length > 0) {
    return refuse({
      code: 'unknown_permission',
      unknownPermissions: unknown,
      message: `not in the permission catalog (names compare exactly): ${unknown.join(', ')}`,
    });
  }
  return {
    ok: true,
    role: { name, permissions: after.sort() },
    legacyPermissions: after.filter((p) => !isPermission(p)).sort(),
  };
}

function previousPermissions(folded: string, existing: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(existing)
    .filter(([n]) => foldRoleName(n) === folded)
    .flatMap(([, perms]) => perms);
}

function refuse(refusal: CustomRoleSaveRefusal): CustomRoleSaveResult {
  return { ok: false, refusal };
}

// ---------------------------------------------------------------- role removal (rule 10)

/** A caller seen recently (not configuration). */
export interface Observation {
  subject: string;
  nameClaim: string;
  nameClaimValue: string | null;
  roleClaimValues: readonly string[];
  groupClaimValues: readonly string[];
  lastSeen: Date;
}

export type RoleHolder =
  | { kind: 'person'; claim: string; value: string }
  | { kind: 'group'; value: string }
  | { kind: 'observed'; subject: string; nameClaimValue: string | null };

export type RoleRemovalResult =
  | { ok: true; name: string }
  | { ok: false; code: 'builtin_role'; message: string }
  | { ok: false; code: 'not_found'; message: string }
  | { ok: false; code: 'has_holders'; message: string; holders: RoleHolder[] };

export interface RoleRemovalInput {
  name: string;
  access: AccessDocument;
  observations: readonly Observation[];
  /** observation_retention_days */
  observationWindowDays: number;
  now: Date;
}

/**
 * Removing a role is refused while a holder can be seen: a person granted it here (whatever
 * the grant's claim), a group mapped onto it, or a caller seen arriving with it in the role
 * claim inside the observation window. Built-in roles cannot be removed.
 */
export function checkRoleRemoval(input: RoleRemovalInput): RoleRemovalResult {
  const name = foldRoleName(input.name);
  const builtIn = builtInRoleOf(name);
  if (builtIn !== null) return { ok: false, code: 'builtin_role', message: `the built-in role '${builtIn}' cannot be removed` };
  if (!Object.keys(input.access.customRoles).some((n) => foldRoleName(n) === name)) {
    return { ok: false, code: 'not_found', message: `no custom role '${input.name}'` };
  }
  const holders: RoleHolder[] = [];
  for (const g of input.access.personGrants) {
    if (foldRoleName(g.role) === name) holders.push({ kind: 'person', claim: g.claim, value: g.value });
  }
  for (const [group, roles] of Object.entries(input.access.groupRoles)) {
    if (roles.some((r) => foldRoleName(r) === name)) holders.push({ kind: 'group', value: group });
  }
  const since = input.now.getTime() - input.observationWindowDays * 86_400_000;
  for (const o of input.observations) {
    if (o.lastSeen.getTime() < since) continue;
    if (o.roleClaimValues.some((r) => foldRoleName(r) === name)) {
      holders.push({ kind: 'observed', subject: o.subject, nameClaimValue: o.nameClaimValue });
    }
  }
  if (holders.length > 0) {
    return {
      ok: false,
      code: 'has_holders',
      holders,
      message: `role '${name}' still has holders: ${holders.map(describeHolder).join('; ')}`,
    };
  }
  return { ok: true, name };
}

export function describeHolder(h: RoleHolder): string {
  switch (h.kind) {
    case 'person':
      return `person ${h.claim}=${h.value}`;
    case 'group':
      return `group ${h.value}`;
    case 'observed':
      return `caller ${h.nameClaimValue ?? h.subject} (seen with it in the role claim)`;
  }
}

// ---------------------------------------------------------------- route to admin (rule 11)

export const AdminRoute = {
  PersonGrant: 'person-grant',
  GroupMapping: 'group-mapping',
  RoleClaim: 'role-claim',
  AdminGrant: 'admin-grant',
} as const;
export type AdminRoute = (typeof AdminRoute)[keyof typeof AdminRoute];

export const NO_ADMIN_ROUTE_MESSAGE =
  'this change would leave no route to admin; keep at least one of: a person granted admin, a group mapped onto admin, ' +
  'a role claim the installation reads (role_claim), or a non-empty SERVICE_ADMIN_GRANT';

export interface AdminRouteInput {
  /** The proposed document, as it would be after the write. */
  access: AccessDocument;
  claimNames: ClaimNames;
  /**
   * Whether the installation reads a role claim. Pass `claimNames.role_claim !== ''` unless the
   * caller knows better (for example: the role claim has been seen carrying `admin`).
   */
  roleClaimInUse: boolean;
  adminGrant: AdminGrantInput;
}

export type AdminRouteResult =
  | { ok: true; routes: AdminRoute[] }
  | { ok: false; code: 'no_admin_route'; message: string; routes: readonly AdminRoute[] };

/**
 * At least one route to admin must remain after every write of a role mapping. A person
 * grant counts only when its claim is the configured name claim (otherwise it grants nothing);
 * SERVICE_ADMIN_GRANT counts only when one of its entries actually grants (is prefixed).
 */
export function checkAdminRoute(input: AdminRouteInput): AdminRouteResult {
  const routes: AdminRoute[] = [];
  const isAdmin = (r: string): boolean => foldRoleName(r) === BuiltInRole.Admin;
  if (input.access.personGrants.some((g) => g.claim === input.claimNames.name_claim && g.value !== '' && isAdmin(g.role))) {
    routes.push(AdminRoute.PersonGrant);
  }
  if (Object.entries(input.access.groupRoles).some(([g, roles]) => normalizeGroupValue(g) !== '' && roles.some(isAdmin))) {
    routes.push(AdminRoute.GroupMapping);
  }
  if (input.roleClaimInUse && input.claimNames.role_claim.trim() !== '') routes.push(AdminRoute.RoleClaim);
  if (parseAdminGrant(input.adminGrant).entries.length > 0) routes.push(AdminRoute.AdminGrant);
  if (routes.length === 0) {
    return { ok: false, code: 'no_admin_route', message: NO_ADMIN_ROUTE_MESSAGE, routes: Object.values(AdminRoute) };
  }
  return { ok: true, routes };
}

// ---------------------------------------------------------------- standing findings

/** Rule 6: the surface warns whenever name_claim is not `sub`. */
export function nameClaimWarning(claimNames: ClaimNames): Finding | null {
  if (claimNames.name_claim === 'sub') return null;
  return finding(
    FindingSubsystem.Auth,
    'advisory',
    `name_claim is '${claimNames.name_claim}', not 'sub': person grants, attribution and the audit trail follow a claim the directory may reassign or change`,
    { field: 'auth.name_claim' },
  );
}

/**
 * Findings about the stored custom roles: a legacy role naming a permission outside the
 * catalog (it keeps working with the rest of its permissions), and a stored name that collides
 * with a built-in (the built-in wins).
 */
export function customRoleFindings(customRoles: Readonly<Record<string, readonly string[]>>): Finding[] {
  const out: Finding[] = [];
  for (const [name, perms] of Object.entries(customRoles)) {
    const builtIn = builtInRoleOf(name);
    if (builtIn !== null) {
      out.push(
        finding(FindingSubsystem.Auth, 'advisory', `custom role '${name}' collides with the built-in role '${builtIn}' and is ignored`, {
          field: `access.roles.${name}`,
        }),
      );
      continue;
    }
    const unknown = perms.filter((p) => !isPermission(p));
    if (unknown.length > 0) {
      out.push(
        finding(
          FindingSubsystem.Auth,
          'advisory',
          `custom role '${name}' names permissions that are not in the catalog and grant nothing: ${unknown.join(', ')}`,
          { field: `access.roles.${name}` },
        ),
      );
    }
  }
  return out;
}

/** The permissions a role save would grant, catalog names only (legacy names dropped). */
export function effectivePermissions(permissions: readonly string[]): Permission[] {
  return [...new Set(permissions.filter(isPermission))].sort();
}
