import type { AccessChange, AccessState } from '../access/access-change.js';
import { foldRoleName } from '../auth/built-in-roles.js';
import { type ClaimNames, normalizeGroupValue } from '../auth/role-resolution.js';

/** The part of the access document one change writes; changes of the same target conflict on revert. */
export function accessTarget(change: AccessChange): string {
  switch (change.kind) {
    case 'grant-person':
    case 'remove-person':
    case 'forget-person': return `person:${change.claim}:${change.value}`;
    case 'map-group': return `group:${normalizeGroupValue(change.value)}`;
    case 'save-role':
    case 'remove-role': return `role:${foldRoleName(change.name)}`;
    case 'save-claims': return 'claims';
  }
}

type Slice =
  | { claim: string; value: string; roles: string[] }
  | { value: string; roles: string[] }
  | { name: string; permissions: string[] }
  | AccessState['claimNames']
  | null;

/** What the feed shows as before/after: that target's slice of the state (a role that did not exist: null). */
export function accessSlice(change: AccessChange, state: AccessState): Slice {
  const doc = state.document;
  switch (change.kind) {
    case 'grant-person':
    case 'remove-person':
    case 'forget-person': {
      const roles = doc.personGrants.filter((g) => g.claim === change.claim && g.value === change.value).map((g) => g.role).sort();
      return { claim: change.claim, value: change.value, roles };
    }
    case 'map-group': {
      const value = normalizeGroupValue(change.value);
      const key = Object.keys(doc.groupRoles).find((g) => normalizeGroupValue(g) === value);
      return { value, roles: key === undefined ? [] : [...(doc.groupRoles[key] ?? [])].sort() };
    }
    case 'save-role':
    case 'remove-role': {
      const name = foldRoleName(change.name);
      const key = Object.keys(doc.customRoles).find((n) => foldRoleName(n) === name);
      return key === undefined ? null : { name, permissions: [...(doc.customRoles[key] ?? [])] };
    }
    case 'save-claims': return { ...state.claimNames };
  }
}

/**
 * The change that puts a target back as a record's `before` shows it; it goes through
 * AccessWriter like any save (rules 9–12). A person's grants come back, not an observation
 * record that a removal deleted; a role that did not exist is removed (refused while held).
 */
export function inverseAccessChange(kind: string, target: string, before: unknown): AccessChange | null {
  const b = before as Record<string, any> | null;
  switch (kind) {
    case 'access.grant-person':
    case 'access.remove-person':
    case 'access.forget-person': return b && { kind: 'grant-person', claim: b.claim, value: b.value, roles: b.roles };
    case 'access.map-group': return b && { kind: 'map-group', value: b.value, roles: b.roles };
    case 'access.save-role':
    case 'access.remove-role':
      return b ? { kind: 'save-role', name: b.name, permissions: b.permissions } : { kind: 'remove-role', name: target.slice('role:'.length) };
    case 'access.save-claims': return b && { kind: 'save-claims', claims: b as Partial<ClaimNames> };
    default: return null;
  }
}
