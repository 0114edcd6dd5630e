import type { AccessDocument, ClaimNames } from '../auth/role-resolution.js';

/** Claim names saved on the Access surface; a null field falls back to the bootstrap file's. */
export type StoredClaimNames = { [K in keyof ClaimNames]: string | null };

export const NO_STORED_CLAIM_NAMES: StoredClaimNames = Object.freeze({ role_claim: null, group_claim: null, name_claim: null });

/** What one read of the access tables gives: the document, the saved claim names, and the revision they carry. */
export interface AccessSnapshot {
  document: AccessDocument;
  claimNames: StoredClaimNames;
  /** `access_revision.revision` as text (a bigint); '' when it could not be read. */
  revision: string;
}

/** `DataSource.query` and `EntityManager.query` both fit: the writer reads inside its transaction. */
export type Query = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/**
 * Reads the revision first and the tables after it: a write landing in between leaves a newer
 * document labelled with an older revision, which only costs one extra reload, never a stale cache.
 */
export async function readAccessSnapshot(query: Query): Promise<AccessSnapshot> {
  const revision = await readAccessRevision(query);
  // One after another: inside the writer's transaction they share one connection.
  const groups = (await query('SELECT group_value, roles FROM access_group_roles')) as { group_value: string; roles: string[] }[];
  const grants = (await query('SELECT claim, value, role FROM access_person_grants ORDER BY claim, value, role')) as { claim: string; value: string; role: string }[];
  const roles = (await query('SELECT name, permissions FROM access_custom_roles')) as { name: string; permissions: string[] }[];
  const claims = (await query('SELECT role_claim, group_claim, name_claim FROM access_claim_names')) as StoredClaimNames[];
  return {
    document: {
      groupRoles: Object.fromEntries(groups.map((g) => [g.group_value, g.roles])),
      personGrants: grants.map((g) => ({ claim: g.claim, value: g.value, role: g.role })),
      customRoles: Object.fromEntries(roles.map((r) => [r.name, r.permissions])),
    },
    claimNames: claims[0] ? { role_claim: claims[0].role_claim, group_claim: claims[0].group_claim, name_claim: claims[0].name_claim } : NO_STORED_CLAIM_NAMES,
    revision,
  };
}

export async function readAccessRevision(query: Query): Promise<string> {
  const rows = (await query('SELECT revision::text AS revision FROM access_revision')) as { revision: string }[];
  return rows[0]?.revision ?? '';
}

/** Saved claim names over the configured ones, field by field (the store is authoritative once saved, rule 13). */
export function effectiveClaimNames(configured: ClaimNames, stored: StoredClaimNames): ClaimNames {
  return {
    role_claim: stored.role_claim ?? configured.role_claim,
    group_claim: stored.group_claim ?? configured.group_claim,
    name_claim: stored.name_claim ?? configured.name_claim,
  };
}
