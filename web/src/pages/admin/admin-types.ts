/** The admin plane's answers, as docs/api.md and the OpenAPI document describe them. */
import type { Finding } from '../../api/types';

export interface ClaimNames { role_claim: string; group_claim: string; name_claim: string }
export type AdminRoute = 'person-grant' | 'group-mapping' | 'role-claim' | 'admin-grant';
export type RoleSourceKind = 'role-claim' | 'group' | 'person-grant' | 'admin-grant';

export interface AccessOverview {
  claimNames: ClaimNames;
  savedClaimNames: { role_claim: string | null; group_claim: string | null; name_claim: string | null };
  counts: { people: number; signedIn: number; notSignedInYet: number; groups: number; mappedGroups: number; personGrants: number; customRoles: number };
  adminRoutes: AdminRoute[];
  observationWindowDays: number;
  findings: Finding[];
}

export interface RoleSource { role: string; via: RoleSourceKind; value: string }
export interface AccessPerson {
  claim: string;
  value: string;
  subject: string | null;
  lastSeen: string | null;
  signedIn: boolean;
  roles: string[];
  roleSources: RoleSource[];
}
export interface AccessPeoplePage { people: AccessPerson[]; total: number; limit: number; offset: number }
export interface AccessGroup { value: string; roles: string[]; mapped: boolean; seenWith: number }
export interface AccessGroups { groups: AccessGroup[] }
export interface AccessRole { name: string; permissions: string[]; legacyPermissions: string[]; holders: number }
export interface AccessRoles { permissions: string[]; builtIn: AccessRole[]; custom: AccessRole[]; findings: Finding[] }
export interface AccessGrant { claim: string; value: string; roles: string[]; findings: { reason: string }[] }

export type ConfigSource = 'default' | 'file' | 'environment' | 'store';
export interface ConfigReference { name: string; from: 'secrets-block' | 'stored-secret' | 'environment' | 'unresolved' }
export interface ConfigLeaf {
  key: string;
  value: unknown;
  source: ConfigSource;
  variable?: string;
  references?: ConfigReference[];
  bootstrap?: true;
  restartDue?: true;
  configured?: unknown;
}
export interface ConfigOverview {
  file: { path: string; present: boolean };
  revision: string | null;
  bootstrap: ConfigLeaf[];
  secrets: { file: string[]; stored: string[] };
  keys: ConfigLeaf[];
}
export interface StoredSetting { key: string; value: unknown; updatedAt: string; updatedBy: string }
export interface StoredSettings { settings: StoredSetting[] }
export interface SettingWarning { field: string | null; severity: 'blocking' | 'advisory'; reason: string }
export interface SettingWritten {
  key: string;
  value: unknown;
  source: ConfigSource;
  change: number | null;
  warnings: SettingWarning[];
  overriddenBy: string[];
}

export interface StoredSecret { name: string; updatedAt: string; updatedBy: string; readable: boolean; usedBy: string[] }
export interface StoredSecrets { secrets: StoredSecret[]; key: 'ok' | 'missing' | 'invalid' }

export interface ConfigChange {
  id: number;
  at: string;
  attribution: string;
  kind: string;
  target: string;
  before: unknown;
  after: unknown;
  revertOf: number | null;
}
export interface ConfigChangePage { changes: ConfigChange[]; total: number; limit: number; offset: number }

export interface ImportProblem { path: string; error: string }
export interface ConfigImported {
  imported: { settings: string[]; people: number; groups: number; roles: number };
  change: number;
  warnings: ImportProblem[];
  unresolved: { name: string; used_by: string[] }[];
}
export interface ArchiveRestored { schema: string; createdAt: string; rows: Record<string, number>; change: number }
