import type { AccessPerson, AccessRole, AccessRoles, ClaimNames, RoleSource } from './admin-types';

/** Where a role came from, in the People pane's words (spec rule 1 and 4). */
export function roleSourceLabel(source: RoleSource, claims?: ClaimNames): string {
  switch (source.via) {
    case 'role-claim': return `role claim${claims ? ` ${claims.role_claim}` : ''}: ${source.value}`;
    case 'group': return `group ${source.value}`;
    case 'person-grant': return 'granted here';
    case 'admin-grant': return `bootstrap grant ${source.value}`;
    default: return `${String(source.via)} ${source.value}`;
  }
}

export interface PersonRole { role: string; sources: string[]; granted: boolean }

/**
 * Each role a person holds with every source giving it, sorted by role; a role that has no
 * source listed still shows (as "source not named") rather than vanishing.
 */
export function personRoles(person: AccessPerson, claims?: ClaimNames): PersonRole[] {
  const byRole = new Map<string, PersonRole>();
  for (const role of person.roles) byRole.set(role, { role, sources: [], granted: false });
  for (const s of person.roleSources) {
    const entry = byRole.get(s.role) ?? { role: s.role, sources: [], granted: false };
    entry.sources.push(roleSourceLabel(s, claims));
    if (s.via === 'person-grant') entry.granted = true;
    byRole.set(s.role, entry);
  }
  for (const entry of byRole.values()) if (entry.sources.length === 0) entry.sources.push('source not named');
  return [...byRole.values()].sort((a, b) => a.role.localeCompare(b.role));
}

/** The roles granted on this page (the only ones a grant can change). */
export function grantedRoles(person: AccessPerson): string[] {
  return [...new Set(person.roleSources.filter((s) => s.via === 'person-grant').map((s) => s.role))].sort();
}

export interface MatrixRow { permission: string; group: string; legacy: boolean; cells: { role: string; holds: boolean; label: string }[] }
export interface PermissionMatrix { roles: AccessRole[]; groups: { name: string; rows: MatrixRow[] }[] }

/**
 * Roles × permissions: one row per permission of the catalog (grouped by the part before the
 * dot, in catalog order), then any legacy permission a custom role still names; a column per
 * role, built-in first. Each cell carries a label a screen reader can say on its own.
 */
export function permissionMatrix(data: AccessRoles): PermissionMatrix {
  const roles = [...data.builtIn, ...data.custom];
  const legacy = [...new Set(data.custom.flatMap((r) => r.legacyPermissions))].filter((p) => !data.permissions.includes(p)).sort();
  const row = (permission: string, isLegacy: boolean): MatrixRow => ({
    permission,
    group: isLegacy ? 'not in the catalog' : permission.split('.')[0] ?? permission,
    legacy: isLegacy,
    cells: roles.map((r) => {
      const holds = r.permissions.includes(permission) || r.legacyPermissions.includes(permission);
      return { role: r.name, holds, label: `${r.name} ${holds ? 'holds' : 'does not hold'} ${permission}` };
    }),
  });
  const groups: { name: string; rows: MatrixRow[] }[] = [];
  for (const permission of data.permissions) {
    const r = row(permission, false);
    const existing = groups.find((g) => g.name === r.group);
    if (existing) existing.rows.push(r);
    else groups.push({ name: r.group, rows: [r] });
  }
  if (legacy.length > 0) groups.push({ name: 'not in the catalog', rows: legacy.map((p) => row(p, true)) });
  return { roles, groups };
}

/** Rule 6: the surface warns whenever name_claim is not `sub`. */
export function nameClaimWarning(nameClaim: string): string | null {
  const value = nameClaim.trim();
  if (value === 'sub') return null;
  return `The name claim is "${value || '(empty)'}", not "sub": grants and attribution follow a claim the directory may let people change or reuse. `
    + 'Use "sub" unless the directory guarantees this claim is unique and stable; grants under another claim grant nothing.';
}
