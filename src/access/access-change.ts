import { checkRoleRemoval, type Observation, type RoleHolder, validateCustomRoleSave } from '../auth/access-rules.js';
import { foldRoleName } from '../auth/built-in-roles.js';
import { type AccessDocument, type ClaimNames, normalizeGroupValue, roleCatalog } from '../auth/role-resolution.js';
import type { StoredClaimNames } from './access-snapshot.js';

/** One write of the Access surface. Every write goes through AccessWriter as one of these. */
export type AccessChange =
  | { kind: 'grant-person'; claim: string; value: string; roles: string[] }
  | { kind: 'remove-person'; claim: string; value: string }
  /** Drops a person's grants and by-hand entry but keeps what was observed of them (an import: observations are not configuration). */
  | { kind: 'forget-person'; claim: string; value: string }
  | { kind: 'map-group'; value: string; roles: string[] }
  | { kind: 'save-role'; name: string; permissions: string[] }
  | { kind: 'remove-role'; name: string }
  | { kind: 'save-claims'; claims: Partial<ClaimNames> };

/** What the access tables hold, before or after a change. */
export interface AccessState {
  document: AccessDocument;
  claimNames: StoredClaimNames;
}

/** `invalid` → 422, `conflict` → 409, `not-found` → 404; `details` go into the body beside `error`. */
export interface AccessRefusal {
  reason: 'invalid' | 'conflict' | 'not-found';
  code: string;
  error: string;
  details?: Record<string, unknown>;
}

export type Statement = [sql: string, parameters: unknown[]];

export type AccessPlan =
  | { ok: true; after: AccessState; statements: Statement[] }
  | { ok: false; refusal: AccessRefusal };

export interface PlanInput {
  change: AccessChange;
  before: AccessState;
  /** Callers seen inside the observation window (rule 10's holders). */
  observations: readonly Observation[];
  observationWindowDays: number;
  now: Date;
  attribution: string;
}

/**
 * Turns a change into the state after it and the statements that write it, or a refusal. Rules 9
 * and 10 are checked here; rule 11 (a route to admin) is the writer's, on the state after.
 * Validation covers only what a save adds or changes: a role already granted to this person or
 * group passes even when it no longer exists (it keeps its finding).
 */
export function planAccessChange(input: PlanInput): AccessPlan {
  const { change, before, attribution } = input;
  const doc = before.document;
  switch (change.kind) {
    case 'grant-person': {
      const held = doc.personGrants.filter((g) => g.claim === change.claim && g.value === change.value).map((g) => g.role);
      const roles = foldAll(change.roles);
      const unknown = unknownRoles(roles, held, doc);
      if (unknown) return unknown;
      const others = doc.personGrants.filter((g) => !(g.claim === change.claim && g.value === change.value));
      return planned({ ...before, document: { ...doc, personGrants: [...others, ...roles.map((role) => ({ claim: change.claim, value: change.value, role }))] } }, [
        ['DELETE FROM access_person_grants WHERE claim = $1 AND value = $2', [change.claim, change.value]],
        ...roles.map((role): Statement => ['INSERT INTO access_person_grants (claim, value, role, created_by) VALUES ($1, $2, $3, $4)', [change.claim, change.value, role, attribution]]),
        ['INSERT INTO access_people (claim, value, added_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [change.claim, change.value, attribution]],
      ]);
    }
    case 'remove-person': {
      const others = doc.personGrants.filter((g) => !(g.claim === change.claim && g.value === change.value));
      return planned({ ...before, document: { ...doc, personGrants: others } }, [
        ['DELETE FROM access_person_grants WHERE claim = $1 AND value = $2', [change.claim, change.value]],
        ['DELETE FROM access_people WHERE claim = $1 AND value = $2', [change.claim, change.value]],
        // The record goes with the grant (spec "Observation"): under its name claim, or its subject when named by `sub`.
        ['DELETE FROM access_observations WHERE (name_claim = $1 AND name_value = $2) OR ($1 = \'sub\' AND subject = $2)', [change.claim, change.value]],
      ]);
    }
    case 'forget-person': {
      const others = doc.personGrants.filter((g) => !(g.claim === change.claim && g.value === change.value));
      return planned({ ...before, document: { ...doc, personGrants: others } }, [
        ['DELETE FROM access_person_grants WHERE claim = $1 AND value = $2', [change.claim, change.value]],
        ['DELETE FROM access_people WHERE claim = $1 AND value = $2', [change.claim, change.value]],
      ]);
    }
    case 'map-group': {
      const value = normalizeGroupValue(change.value);
      if (value === '') return refused('invalid', 'invalid_group', 'a group value must not be empty (one leading slash is not part of it)');
      const key = Object.keys(doc.groupRoles).find((g) => normalizeGroupValue(g) === value);
      const held = key === undefined ? [] : [...(doc.groupRoles[key] ?? [])];
      const roles = foldAll(change.roles);
      const unknown = unknownRoles(roles, held, doc);
      if (unknown) return unknown;
      const groupRoles = Object.fromEntries(Object.entries(doc.groupRoles).filter(([g]) => normalizeGroupValue(g) !== value));
      if (roles.length > 0) groupRoles[value] = roles;
      return planned({ ...before, document: { ...doc, groupRoles } }, [
        ['DELETE FROM access_group_roles WHERE group_value = $1 OR group_value = $2', [value, `/${value}`]],
        ...(roles.length === 0 ? [] : [['INSERT INTO access_group_roles (group_value, roles, updated_by) VALUES ($1, $2, $3)', [value, roles, attribution]] as Statement]),
      ]);
    }
    case 'save-role': {
      const result = validateCustomRoleSave({ name: change.name, permissions: change.permissions }, doc.customRoles);
      if (!result.ok) {
        const { code, message, ...details } = result.refusal;
        return refused('invalid', code, message, details);
      }
      const { name, permissions } = result.role;
      const customRoles = Object.fromEntries(Object.entries(doc.customRoles).filter(([n]) => foldRoleName(n) !== name));
      customRoles[name] = permissions;
      return planned({ ...before, document: { ...doc, customRoles } }, [
        ['DELETE FROM access_custom_roles WHERE lower(trim(name)) = $1', [name]],
        ['INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES ($1, $2, $3)', [name, permissions, attribution]],
      ]);
    }
    case 'remove-role': {
      const result = checkRoleRemoval({ name: change.name, access: doc, observations: input.observations, observationWindowDays: input.observationWindowDays, now: input.now });
      if (!result.ok) {
        if (result.code === 'has_holders') return refused('conflict', result.code, result.message, { holders: result.holders satisfies RoleHolder[] });
        return refused(result.code === 'not_found' ? 'not-found' : 'invalid', result.code, result.message);
      }
      const customRoles = Object.fromEntries(Object.entries(doc.customRoles).filter(([n]) => foldRoleName(n) !== result.name));
      return planned({ ...before, document: { ...doc, customRoles } }, [['DELETE FROM access_custom_roles WHERE lower(trim(name)) = $1', [result.name]]]);
    }
    case 'save-claims': {
      const claimNames: StoredClaimNames = { ...before.claimNames, ...change.claims };
      return planned({ ...before, claimNames }, [[
        `INSERT INTO access_claim_names (id, role_claim, group_claim, name_claim, updated_by) VALUES (true, $1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET role_claim = $1, group_claim = $2, name_claim = $3, updated_by = $4, updated_at = now()`,
        [claimNames.role_claim, claimNames.group_claim, claimNames.name_claim, attribution],
      ]]);
    }
  }
}

function foldAll(roles: readonly string[]): string[] {
  return [...new Set(roles.map(foldRoleName))].sort();
}

/** Roles a save adds that name no role (built-in or custom); roles already held are not re-judged. */
function unknownRoles(roles: readonly string[], held: readonly string[], doc: AccessDocument): AccessPlan | null {
  const catalog = roleCatalog(doc.customRoles);
  const kept = new Set(held.map(foldRoleName));
  const unknown = roles.filter((r) => !catalog.has(r) && !kept.has(r));
  if (unknown.length === 0) return null;
  return refused('invalid', 'unknown_role', `no such role: ${unknown.join(', ')} (the built-in roles are reader, operator and admin; save a custom role first)`, { unknownRoles: unknown });
}

function planned(after: AccessState, statements: Statement[]): AccessPlan {
  return { ok: true, after, statements };
}

function refused(reason: AccessRefusal['reason'], code: string, error: string, details?: Record<string, unknown>): AccessPlan {
  return { ok: false, refusal: { reason, code, error, ...(details ? { details } : {}) } };
}
