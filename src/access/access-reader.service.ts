import { Inject, Injectable } from '@nestjs/common';
import { checkAdminRoute, customRoleFindings, effectivePermissions, nameClaimWarning, type Observation } from '../auth/access-rules.js';
import { BUILT_IN_ROLE_PERMISSIONS, BUILT_IN_ROLES, foldRoleName } from '../auth/built-in-roles.js';
import { ALL_PERMISSIONS, isPermission } from '../auth/permission.js';
import { type AccessDocument, type ClaimNames, normalizeGroupValue, resolveRoles, type RoleSource } from '../auth/role-resolution.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { DatabaseService } from '../database/database.service.js';
import type { Finding } from '../findings/finding.js';
import { type AccessSnapshot, effectiveClaimNames, readAccessSnapshot } from './access-snapshot.js';
import { AccessStoreService } from './access-store.service.js';
import { readObservations } from './observations.reader.js';
import { isChatPrincipal, resolveChatRoles } from './chat-principals.js';

/** One row of the People pane. `lastSeen` null: not signed in yet (added by hand or granted only). */
export interface AccessPerson {
  claim: string;
  value: string;
  subject: string | null;
  lastSeen: string | null;
  signedIn: boolean;
  roles: string[];
  /** Where each role comes from: role-claim, group, person-grant, admin-grant (the bootstrap grant). */
  roleSources: RoleSource[];
}

export interface AccessGroup { value: string; roles: string[]; mapped: boolean; seenWith: number }
export interface AccessRole { name: string; permissions: string[]; legacyPermissions: string[]; holders: number }

/** Everything one pane needs, read fresh from the database (the surface shows what is stored now). */
interface Reading {
  snapshot: AccessSnapshot;
  claimNames: ClaimNames;
  people: AccessPerson[];
  observations: Observation[];
}

/** The Access surface's four panes over one document (spec "The Access surface has four panes …"). */
@Injectable()
export class AccessReader {
  constructor(
    private readonly db: DatabaseService,
    private readonly store: AccessStoreService,
    private readonly config: ConfigService,
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
  ) {}

  async overview() {
    const r = await this.read();
    const groups = this.groupsOf(r);
    const roleClaimSeen = r.observations.some((o) => o.roleClaimValues.some((v) => foldRoleName(v) === 'admin'));
    const route = checkAdminRoute({ access: r.snapshot.document, claimNames: r.claimNames, roleClaimInUse: roleClaimSeen, adminGrant: this.env.adminGrant });
    const findings: Finding[] = [nameClaimWarning(r.claimNames), ...customRoleFindings(r.snapshot.document.customRoles)].filter((f): f is Finding => f !== null);
    return {
      claimNames: r.claimNames,
      /** Which claim names were saved on the surface (null: the bootstrap file's value is in force). */
      savedClaimNames: r.snapshot.claimNames,
      counts: {
        people: r.people.length,
        signedIn: r.people.filter((p) => p.signedIn).length,
        notSignedInYet: r.people.filter((p) => !p.signedIn).length,
        groups: groups.length,
        mappedGroups: groups.filter((g) => g.mapped).length,
        personGrants: r.snapshot.document.personGrants.length,
        customRoles: Object.keys(r.snapshot.document.customRoles).length,
      },
      adminRoutes: route.ok ? route.routes : [],
      observationWindowDays: this.config.config.observation_retention_days,
      findings,
    };
  }

  /** `q` matches the value, the subject or a role, case-insensitively. */
  async people(q: string | undefined, limit: number, offset: number) {
    const { people } = await this.read();
    const needle = q?.toLowerCase();
    const matching = needle
      ? people.filter((p) => [p.value, p.subject ?? '', ...p.roles].some((s) => s.toLowerCase().includes(needle)))
      : people;
    return { people: matching.slice(offset, offset + limit), total: matching.length, limit, offset };
  }

  async groups() {
    return { groups: this.groupsOf(await this.read()) };
  }

  async roles() {
    const r = await this.read();
    const holders = (name: string) => r.people.filter((p) => p.roles.includes(name)).length;
    return {
      permissions: ALL_PERMISSIONS,
      builtIn: BUILT_IN_ROLES.map((name): AccessRole => ({ name, permissions: [...BUILT_IN_ROLE_PERMISSIONS[name]], legacyPermissions: [], holders: holders(name) })),
      custom: Object.entries(r.snapshot.document.customRoles).sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, perms]): AccessRole => ({
        name, permissions: effectivePermissions(perms), legacyPermissions: perms.filter((p) => !isPermission(p)), holders: holders(foldRoleName(name)),
      })),
      findings: customRoleFindings(r.snapshot.document.customRoles),
    };
  }

  private groupsOf(r: Reading): AccessGroup[] {
    const groups = new Map<string, AccessGroup>();
    for (const [value, roles] of Object.entries(r.snapshot.document.groupRoles)) {
      const key = normalizeGroupValue(value);
      groups.set(key, { value: key, roles: [...roles].map(foldRoleName).sort(), mapped: true, seenWith: 0 });
    }
    for (const o of r.observations) {
      for (const g of new Set(o.groupClaimValues.map(normalizeGroupValue))) {
        const group = groups.get(g) ?? { value: g, roles: [], mapped: false, seenWith: 0 };
        group.seenWith += 1;
        groups.set(g, group);
      }
    }
    return [...groups.values()].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  }

  private async read(): Promise<Reading> {
    const query = (sql: string, p?: unknown[]) => this.db.dataSource.query(sql, p);
    const [snapshot, observations, byHand] = await Promise.all([
      readAccessSnapshot(query),
      readObservations(query, this.config.config.observation_retention_days),
      query('SELECT claim, value FROM access_people') as Promise<{ claim: string; value: string }[]>,
    ]);
    const claimNames = effectiveClaimNames(this.store.configuredClaimNames(), snapshot.claimNames);
    return { snapshot, claimNames, observations, people: this.peopleOf(snapshot.document, claimNames, observations, byHand) };
  }

  /** Everyone seen, plus everyone added by hand or granted who has not been seen (not signed in yet). */
  private peopleOf(doc: AccessDocument, names: ClaimNames, observations: Observation[], byHand: { claim: string; value: string }[]): AccessPerson[] {
    const people = new Map<string, AccessPerson>();
    const keyOf = (claim: string, value: string) => `${claim}\u0000${value}`;
    const resolve = (claims: Record<string, unknown>) => resolveRoles({ claims, claimNames: names, access: doc, adminGrant: this.env.adminGrant });
    for (const o of observations) {
      const [claim, value] = o.nameClaimValue === null ? ['sub', o.subject] : [o.nameClaim, o.nameClaimValue];
      if (people.has(keyOf(claim, value))) continue;
      // A chat user seen: its own grants (its channels' roles belong to the channels, not to it).
      const resolution = isChatPrincipal(claim) ? resolveChatRoles(doc, value, null) : resolve({ sub: o.subject, [claim]: value, [names.role_claim]: o.roleClaimValues, [names.group_claim]: o.groupClaimValues });
      people.set(keyOf(claim, value), {
        claim, value, subject: o.subject, lastSeen: o.lastSeen.toISOString(), signedIn: true, roles: resolution.roles, roleSources: resolution.roleSources,
      });
    }
    for (const { claim, value } of [...byHand, ...doc.personGrants]) {
      if (people.has(keyOf(claim, value))) continue;
      const resolution = isChatPrincipal(claim) ? resolveChatRoles(doc, value, null) : resolve({ [claim]: value, ...(claim === 'sub' ? { sub: value } : {}) });
      people.set(keyOf(claim, value), {
        claim, value, subject: claim === 'sub' ? value : null, lastSeen: null, signedIn: false, roles: resolution.roles, roleSources: resolution.roleSources,
      });
    }
    return [...people.values()].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : a.claim < b.claim ? -1 : 1));
  }
}
