import { finding, FindingSubsystem, type Finding } from '../findings/finding.js';
import { BUILT_IN_ROLE_PERMISSIONS, BuiltInRole, builtInRoleOf, foldRoleName, IMPLICIT_PERMISSIONS } from './built-in-roles.js';
import { isPermission, type Permission } from './permission.js';

/**
 * Role resolution (spec "Role resolution rules" 1–8 and SERVICE_ADMIN_GRANT): a pure function
 * from a validated caller's claims and the access document to roles and permissions.
 *
 * Claim value shapes: a claim may be a string or an array of strings. A string is ONE value; it
 * is never split on spaces or commas, because group values (paths, display names) and role
 * names may legitimately contain them and splitting would break exact comparison. Numbers and
 * booleans are taken as their text. Objects, arrays holding objects, and JSON text (a string
 * starting with `{` or `[` that parses) are "nested" claims: they yield no values and a finding
 * (rule 7).
 */

/** The three claim names of the `auth:` block (same field names as `AuthConfig`). */
export interface ClaimNames {
  role_claim: string;
  group_claim: string;
  name_claim: string;
}

/** A person grant (spec "Access-control records"). */
export interface PersonGrant {
  claim: string;
  value: string;
  role: string;
}

/** The access document held by the store: group mappings, person grants, custom roles. */
export interface AccessDocument {
  /** group value → role names */
  groupRoles: Record<string, readonly string[]>;
  personGrants: readonly PersonGrant[];
  /** custom role name → permission names (legacy names outside the catalog are tolerated) */
  customRoles: Record<string, readonly string[]>;
}

export const AdminGrantClaim = { Group: 'group', Sub: 'sub' } as const;
export type AdminGrantClaim = (typeof AdminGrantClaim)[keyof typeof AdminGrantClaim];

export interface AdminGrantEntry {
  claim: AdminGrantClaim;
  value: string;
}

export interface ParsedAdminGrant {
  /** Entries that grant admin. */
  entries: AdminGrantEntry[];
  /** One finding per entry that grants nothing (no `group:`/`sub:` prefix, or empty value). */
  findings: Finding[];
}

/** Raw SERVICE_ADMIN_GRANT: one comma-separated string, or several such strings. */
export type AdminGrantInput = string | readonly string[] | null | undefined;

export const RoleSourceKind = {
  RoleClaim: 'role-claim',
  Group: 'group',
  PersonGrant: 'person-grant',
  AdminGrant: 'admin-grant',
} as const;
export type RoleSourceKind = (typeof RoleSourceKind)[keyof typeof RoleSourceKind];

/** Where one role came from (the People pane shows it). `value` is the claim/group/grant value. */
export interface RoleSource {
  role: string;
  via: RoleSourceKind;
  value: string;
}

export interface RoleResolutionInput {
  claims: Readonly<Record<string, unknown>>;
  claimNames: ClaimNames;
  access: AccessDocument;
  adminGrant?: AdminGrantInput;
}

export interface RoleResolution {
  /** The `sub` claim, or null when the token carries none. */
  subject: string | null;
  /** The value of the configured name claim, or null when absent. */
  nameClaimValue: string | null;
  roleClaimValues: string[];
  groupClaimValues: string[];
  /** Known roles only (built-in or custom), lower-cased, sorted, unique. */
  roles: string[];
  /** Catalog permissions the roles hold plus identity.read, sorted, unique. */
  permissions: Permission[];
  /** Every route that contributed a role, sorted by role then source. */
  roleSources: RoleSource[];
  /** Findings about this caller's resolution (subsystem auth, advisory). */
  findings: Finding[];
}

/** Markers a directory sends instead of the group claim when a caller has too many groups. */
export const GROUP_OVERFLOW_MARKERS = ['_claim_names', '_claim_sources', 'hasgroups'] as const;

const ADMIN_GRANT_FIELD = 'SERVICE_ADMIN_GRANT';

/** Group values compare exactly, except that one leading slash is removed (rule 3). */
export function normalizeGroupValue(value: string): string {
  return value.startsWith('/') ? value.slice(1) : value;
}

/**
 * Parses SERVICE_ADMIN_GRANT. Entries are comma-separated and trimmed; empty entries (a
 * trailing comma) are ignored. The prefix (`group:` / `sub:`) is matched case-insensitively;
 * the value after it is kept exactly. An entry without a known prefix grants nothing and is
 * reported (rule 4).
 */
export function parseAdminGrant(raw: AdminGrantInput): ParsedAdminGrant {
  const parts = raw == null ? [] : (typeof raw === 'string' ? [raw] : raw).flatMap((s) => s.split(','));
  const entries: AdminGrantEntry[] = [];
  const findings: Finding[] = [];
  for (const part of parts) {
    const entry = part.trim();
    if (entry === '') continue;
    const colon = entry.indexOf(':');
    const prefix = colon > 0 ? entry.slice(0, colon).trim().toLowerCase() : '';
    const value = colon > 0 ? entry.slice(colon + 1).trim() : '';
    if ((prefix === AdminGrantClaim.Group || prefix === AdminGrantClaim.Sub) && value !== '') {
      entries.push({ claim: prefix, value });
    } else if (prefix === AdminGrantClaim.Group || prefix === AdminGrantClaim.Sub) {
      findings.push(
        finding(FindingSubsystem.Auth, 'advisory', `SERVICE_ADMIN_GRANT entry '${entry}' has an empty value and grants nothing`, {
          field: ADMIN_GRANT_FIELD,
        }),
      );
    } else {
      findings.push(
        finding(
          FindingSubsystem.Auth,
          'advisory',
          `SERVICE_ADMIN_GRANT entry '${entry}' has no 'group:' or 'sub:' prefix and grants nothing`,
          { field: ADMIN_GRANT_FIELD },
        ),
      );
    }
  }
  return { entries, findings };
}

type ClaimRead = { values: string[]; nested: boolean };

/** Reads a claim as a flat list of values (see the module comment for the accepted shapes). */
export function readClaimValues(claims: Readonly<Record<string, unknown>>, name: string): ClaimRead {
  if (!Object.hasOwn(claims, name)) return { values: [], nested: false };
  return readValue(claims[name]);
}

function readValue(raw: unknown): ClaimRead {
  if (raw == null) return { values: [], nested: false };
  if (typeof raw === 'string') return isJsonText(raw) ? { values: [], nested: true } : { values: [raw], nested: false };
  if (typeof raw === 'number' || typeof raw === 'boolean') return { values: [String(raw)], nested: false };
  if (Array.isArray(raw)) {
    const values: string[] = [];
    let nested = false;
    for (const item of raw as unknown[]) {
      if (typeof item === 'string') values.push(item);
      else if (typeof item === 'number' || typeof item === 'boolean') values.push(String(item));
      else if (item != null) nested = true;
    }
    return { values: [...new Set(values)], nested };
  }
  return { values: [], nested: true };
}

function isJsonText(value: string): boolean {
  const t = value.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    const parsed: unknown = JSON.parse(t);
    return typeof parsed === 'object' && parsed !== null;
  } catch {
    return false;
  }
}

function readSingle(claims: Readonly<Record<string, unknown>>, name: string): string | null {
  if (!Object.hasOwn(claims, name)) return null;
  const raw = claims[name];
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return null;
}

/** Known roles (folded name → permissions): built-ins win over a colliding legacy custom role. */
export function roleCatalog(customRoles: Readonly<Record<string, readonly string[]>>): Map<string, Permission[]> {
  const catalog = new Map<string, Permission[]>();
  for (const [name, perms] of Object.entries(customRoles)) {
    const folded = foldRoleName(name);
    if (folded === '' || builtInRoleOf(folded) !== null) continue;
    const known = perms.filter(isPermission);
    catalog.set(folded, [...new Set([...(catalog.get(folded) ?? []), ...known])]);
  }
  for (const [name, perms] of Object.entries(BUILT_IN_ROLE_PERMISSIONS)) catalog.set(name, [...perms]);
  return catalog;
}

function hasOverflowMarker(claims: Readonly<Record<string, unknown>>, marker: (typeof GROUP_OVERFLOW_MARKERS)[number]): boolean {
  if (!Object.hasOwn(claims, marker)) return false;
  const v = claims[marker];
  if (marker === 'hasgroups') return v === true || v === 'true';
  return v != null;
}

export function resolveRoles(input: RoleResolutionInput): RoleResolution {
  const { claims, claimNames, access } = input;
  const findings: Finding[] = [];
  const sources: RoleSource[] = [];
  const catalog = roleCatalog(access.customRoles);
  const add = (role: string, via: RoleSourceKind, value: string): boolean => {
    const folded = foldRoleName(role);
    if (!catalog.has(folded)) return false;
    sources.push({ role: folded, via, value });
    return true;
  };

  const subject = readSingle(claims, 'sub');
  const nameClaimValue = readSingle(claims, claimNames.name_claim);

  // Rule 1/2: role claim, names fold case.
  const roleRead = readClaimValues(claims, claimNames.role_claim);
  if (roleRead.nested) {
    findings.push(
      advisory(
        `role claim '${claimNames.role_claim}' carries nested or JSON-text values, which a flat role_claim cannot address; map groups, or flatten the roles in the directory`,
        'auth.role_claim',
      ),
    );
  } else if (!Object.hasOwn(claims, claimNames.role_claim) && claimNames.role_claim.includes('.')) {
    findings.push(
      advisory(
        `role claim '${claimNames.role_claim}' names a nested path, which a flat role_claim cannot address; map groups, or flatten the roles in the directory`,
        'auth.role_claim',
      ),
    );
  }
  for (const value of roleRead.values) {
    if (!add(value, RoleSourceKind.RoleClaim, value)) {
      findings.push(advisory(`role value '${value}' in claim '${claimNames.role_claim}' names no role`, 'auth.role_claim'));
    }
  }

  // Rule 3/8: groups compare exactly except one leading slash; overflow markers are reported.
  const groupRead = readClaimValues(claims, claimNames.group_claim);
  if (groupRead.nested) {
    findings.push(
      advisory(`group claim '${claimNames.group_claim}' carries nested values; no group mapping can read them`, 'auth.group_claim'),
    );
  }
  const markers = GROUP_OVERFLOW_MARKERS.filter((m) => hasOverflowMarker(claims, m));
  if (markers.length > 0 && groupRead.values.length === 0) {
    findings.push(
      advisory(
        `the directory sent ${markers.join(', ')} instead of the group claim '${claimNames.group_claim}' (too many group memberships): no group mapping can resolve this caller; grant the role through a role claim`,
        'auth.group_claim',
      ),
    );
  }
  const callerGroups = new Set(groupRead.values.map(normalizeGroupValue));
  for (const [group, roles] of Object.entries(access.groupRoles)) {
    if (!callerGroups.has(normalizeGroupValue(group))) continue;
    for (const role of roles) {
      if (!add(role, RoleSourceKind.Group, group)) {
        findings.push(advisory(`group '${group}' is mapped to role '${role}', which does not exist`, 'access.groups'));
      }
    }
  }

  // Rule 5: person grants resolve only under the configured name claim; values compare ordinally.
  for (const grant of access.personGrants) {
    if (grant.claim === claimNames.name_claim) {
      if (nameClaimValue !== null && grant.value === nameClaimValue && !add(grant.role, RoleSourceKind.PersonGrant, grant.value)) {
        findings.push(advisory(`person grant ${grant.claim}=${grant.value} names role '${grant.role}', which does not exist`, 'access.people'));
      }
    } else if (readSingle(claims, grant.claim) === grant.value) {
      findings.push(
        advisory(
          `person grant ${grant.claim}=${grant.value} (role '${grant.role}') grants nothing: its claim '${grant.claim}' is not the configured name_claim '${claimNames.name_claim}'`,
          'auth.name_claim',
        ),
      );
    }
  }

  // Rule 4: SERVICE_ADMIN_GRANT, each entry matched only against its own claim.
  const grant = parseAdminGrant(input.adminGrant);
  findings.push(...grant.findings);
  for (const entry of grant.entries) {
    const matches =
      entry.claim === AdminGrantClaim.Sub ? subject === entry.value : callerGroups.has(normalizeGroupValue(entry.value));
    if (matches) add(BuiltInRole.Admin, RoleSourceKind.AdminGrant, `${entry.claim}:${entry.value}`);
  }

  const roles = [...new Set(sources.map((s) => s.role))].sort();
  const permissions = new Set<Permission>(IMPLICIT_PERMISSIONS);
  for (const role of roles) for (const p of catalog.get(role) ?? []) permissions.add(p);

  return {
    subject,
    nameClaimValue,
    roleClaimValues: roleRead.values,
    groupClaimValues: groupRead.values,
    roles,
    permissions: [...permissions].sort(),
    roleSources: dedupeSources(sources),
    findings: dedupeFindings(findings),
  };
}

function advisory(reason: string, field: string): Finding {
  return finding(FindingSubsystem.Auth, 'advisory', reason, { field });
}

function dedupeSources(sources: RoleSource[]): RoleSource[] {
  const seen = new Map<string, RoleSource>();
  for (const s of sources) seen.set(`${s.role}\u0000${s.via}\u0000${s.value}`, s);
  return [...seen.values()].sort((a, b) => cmp(a.role, b.role) || cmp(a.via, b.via) || cmp(a.value, b.value));
}

export function dedupeFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Map<string, Finding>();
  for (const f of findings) seen.set(`${f.severity}\u0000${f.field ?? ''}\u0000${f.reason}`, f);
  return [...seen.values()];
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
