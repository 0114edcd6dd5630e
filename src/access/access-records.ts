import { foldRoleName } from '../auth/built-in-roles.js';
import { type ClaimNames, normalizeGroupValue } from '../auth/role-resolution.js';
import type { AccessChange, AccessState } from './access-change.js';
import { effectiveClaimNames, type Query, readAccessSnapshot } from './access-snapshot.js';

/** A person on the People pane as configuration knows them: granted roles, or none when added by hand only. */
export interface PersonRecord {
  claim: string;
  value: string;
  roles: string[];
}

/**
 * The access records a configuration export carries and an import replaces (spec "Access-control
 * records" less the observations, which are not configuration). Claim names are the ones in force,
 * so the target behaves alike whatever its own bootstrap file names.
 */
export interface AccessRecords {
  claim_names: ClaimNames;
  people: PersonRecord[];
  /** Normalised group value → roles. */
  groups: Record<string, string[]>;
  /** Custom role name → permissions. */
  roles: Record<string, string[]>;
}

/** A person as `{claim, value}`, the key a grant names them by. */
export type PersonKey = Pick<PersonRecord, 'claim' | 'value'>;

const keyOf = (p: PersonKey) => `${p.claim}\u0000${p.value}`;

/** The access records now, inside the caller's transaction when `query` is one. */
export async function readAccessRecords(query: Query, configured: ClaimNames): Promise<AccessRecords> {
  const { document, claimNames } = await readAccessSnapshot(query);
  const byHand = (await query('SELECT claim, value FROM access_people')) as PersonKey[];
  return accessRecordsOf({ document, claimNames }, byHand, configured);
}

/** Sorted throughout, so two installations holding the same records describe them identically. */
export function accessRecordsOf(state: AccessState, byHand: readonly PersonKey[], configured: ClaimNames): AccessRecords {
  const people = new Map<string, PersonRecord>();
  for (const p of byHand) people.set(keyOf(p), { claim: p.claim, value: p.value, roles: [] });
  for (const g of state.document.personGrants) {
    const person = people.get(keyOf(g)) ?? { claim: g.claim, value: g.value, roles: [] };
    person.roles.push(g.role);
    people.set(keyOf(g), person);
  }
  return {
    claim_names: effectiveClaimNames(configured, state.claimNames),
    people: [...people.values()].map((p) => ({ ...p, roles: [...new Set(p.roles)].sort() })).sort((a, b) => compare(a.claim, b.claim) || compare(a.value, b.value)),
    groups: sortedMap(Object.entries(state.document.groupRoles).map(([g, roles]) => [normalizeGroupValue(g), [...roles].sort()])),
    roles: sortedMap(Object.entries(state.document.customRoles).map(([name, permissions]) => [name, [...permissions].sort()])),
  };
}

/** One change of a replacement, and where in the target records a refusal of it is reported. */
export interface ReplacementStep {
  change: AccessChange;
  path: string;
  /** Said before the refusal, for a change the target records do not name (what they leave out is removed). */
  because?: string;
}

/**
 * The changes that turn `current` into `target`, in an order every one of them can be judged
 * in: roles saved before grants and mappings name them, people and groups the target leaves out
 * cleared before the roles it leaves out are removed (rule 10 then only sees holders that remain),
 * claim names last. People left out are forgotten, not removed: what was observed of them stays.
 */
export function replacementChanges(current: AccessRecords, target: AccessRecords): ReplacementStep[] {
  const steps: ReplacementStep[] = [];
  for (const [name, permissions] of Object.entries(target.roles)) steps.push({ change: { kind: 'save-role', name, permissions }, path: `access.roles.${name}` });
  target.people.forEach((p, i) => steps.push({ change: { kind: 'grant-person', claim: p.claim, value: p.value, roles: p.roles }, path: `access.people[${i}]` }));
  for (const [value, roles] of Object.entries(target.groups)) steps.push({ change: { kind: 'map-group', value, roles }, path: `access.groups.${value}` });

  const keptPeople = new Set(target.people.map(keyOf));
  for (const p of current.people.filter((c) => !keptPeople.has(keyOf(c)))) {
    steps.push({ change: { kind: 'forget-person', claim: p.claim, value: p.value }, path: 'access.people', because: `${p.claim}=${p.value} is not in the import` });
  }
  const keptGroups = new Set(Object.keys(target.groups).map(normalizeGroupValue));
  for (const value of Object.keys(current.groups).filter((g) => !keptGroups.has(normalizeGroupValue(g)))) {
    steps.push({ change: { kind: 'map-group', value, roles: [] }, path: 'access.groups', because: `group ${value} is not in the import` });
  }
  const keptRoles = new Set(Object.keys(target.roles).map(foldRoleName));
  for (const name of Object.keys(current.roles).filter((r) => !keptRoles.has(foldRoleName(r)))) {
    steps.push({ change: { kind: 'remove-role', name }, path: 'access.roles', because: `role ${name} is not in the import, so it would be removed` });
  }
  steps.push({ change: { kind: 'save-claims', claims: { ...target.claim_names } }, path: 'access.claim_names' });
  return steps;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedMap(entries: [string, string[]][]): Record<string, string[]> {
  return Object.fromEntries(entries.sort(([a], [b]) => compare(a, b)));
}
