import { describe, expect, it } from 'vitest';
import {
  AdminRoute,
  checkAdminRoute,
  checkRoleRemoval,
  customRoleFindings,
  effectivePermissions,
  nameClaimWarning,
  NO_ADMIN_ROUTE_MESSAGE,
  validateCustomRoleSave,
  type Observation,
} from './access-rules.js';
import type { AccessDocument, ClaimNames } from './role-resolution.js';

const NAMES: ClaimNames = { role_claim: 'roles', group_claim: 'groups', name_claim: 'sub' };
const EMPTY: AccessDocument = { groupRoles: {}, personGrants: [], customRoles: {} };

describe('rule 9: custom role save', () => {
  it('accepts catalog permissions; stores the folded name and a sorted, unique list', () => {
    expect(validateCustomRoleSave({ name: 'Auditor', permissions: ['runs.read', 'config.read', 'runs.read'] }, {})).toEqual({
      ok: true,
      role: { name: 'auditor', permissions: ['config.read', 'runs.read'] },
      legacyPermissions: [],
    });
  });

  it.each(['admin', 'Admin', 'READER', ' operator '])('refuses the built-in name %j', (name) => {
    const r = validateCustomRoleSave({ name, permissions: ['runs.read'] }, {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusal.code).toBe('builtin_name');
  });

  it('refuses an empty name', () => {
    const r = validateCustomRoleSave({ name: '  ', permissions: [] }, {});
    expect(!r.ok && r.refusal.code).toBe('invalid_name');
  });

  it('refuses a permission outside the catalog, compared exactly (Runs.Read is refused)', () => {
    const r = validateCustomRoleSave({ name: 'x', permissions: ['runs.read', 'Runs.Read', 'jobs.read'] }, {});
    expect(r.ok).toBe(false);
    if (!r.ok && r.refusal.code === 'unknown_permission') {
      expect(r.refusal.unknownPermissions).toEqual(['Runs.Read', 'jobs.read']);
      expect(r.refusal.message).toContain('Runs.Read');
    } else {
      expect.fail('expected unknown_permission');
    }
  });

  it('validates only what the save adds: a stored legacy permission is kept', () => {
    const existing = { legacy: ['runs.read', 'jobs.read'] };
    const r = validateCustomRoleSave({ name: 'Legacy', permissions: ['runs.read', 'jobs.read', 'catalog.read'] }, existing);
    expect(r).toEqual({
      ok: true,
      role: { name: 'legacy', permissions: ['catalog.read', 'jobs.read', 'runs.read'] },
      legacyPermissions: ['jobs.read'],
    });
  });

  it('the legacy name does not excuse a new unknown name', () => {
    const r = validateCustomRoleSave({ name: 'legacy', permissions: ['jobs.read', 'jobs.write'] }, { legacy: ['jobs.read'] });
    expect(!r.ok && r.refusal.code === 'unknown_permission' && r.refusal.unknownPermissions).toEqual(['jobs.write']);
  });

  it('a legacy name on another role does not make it acceptable here', () => {
    const r = validateCustomRoleSave({ name: 'fresh', permissions: ['jobs.read'] }, { legacy: ['jobs.read'] });
    expect(r.ok).toBe(false);
  });

  it('withdrawing permissions is never refused', () => {
    expect(validateCustomRoleSave({ name: 'legacy', permissions: [] }, { legacy: ['jobs.read', 'runs.read'] }).ok).toBe(true);
  });

  it('effectivePermissions drops legacy names', () => {
    expect(effectivePermissions(['runs.read', 'jobs.read', 'catalog.read'])).toEqual(['catalog.read', 'runs.read']);
  });
});

describe('rule 10: role removal', () => {
  const now = new Date('2026-03-01T00:00:00Z');
  const day = 86_400_000;
  const observed = (over: Partial<Observation>): Observation => ({
    subject: 's1',
    nameClaim: 'sub',
    nameClaimValue: 's1',
    roleClaimValues: [],
    groupClaimValues: [],
    lastSeen: now,
    ...over,
  });
  const base = { observations: [] as Observation[], observationWindowDays: 90, now };

  it('removes a role nobody holds', () => {
    expect(checkRoleRemoval({ ...base, name: 'Auditor', access: { ...EMPTY, customRoles: { auditor: ['runs.read'] } } })).toEqual({
      ok: true,
      name: 'auditor',
    });
  });

  it('refuses built-in roles and unknown roles', () => {
    expect(checkRoleRemoval({ ...base, name: 'Reader', access: EMPTY })).toMatchObject({ ok: false, code: 'builtin_role' });
    expect(checkRoleRemoval({ ...base, name: 'ghost', access: EMPTY })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('refuses while holders are visible, naming every one', () => {
    const access: AccessDocument = {
      customRoles: { auditor: ['runs.read'] },
      groupRoles: { '/audit': ['Auditor'], other: ['reader'] },
      personGrants: [
        { claim: 'sub', value: 'ann', role: 'AUDITOR' },
        { claim: 'upn', value: 'old@x', role: 'auditor' },
        { claim: 'sub', value: 'bob', role: 'reader' },
      ],
    };
    const observations = [
      observed({ subject: 'carl', nameClaimValue: 'carl', roleClaimValues: ['Auditor'] }),
      observed({ subject: 'dora', roleClaimValues: ['auditor'], lastSeen: new Date(now.getTime() - 91 * day) }),
      observed({ subject: 'eve', roleClaimValues: ['reader'] }),
    ];
    const r = checkRoleRemoval({ ...base, name: 'auditor', access, observations });
    expect(r.ok).toBe(false);
    if (r.ok || r.code !== 'has_holders') return expect.fail('expected has_holders');
    expect(r.holders).toEqual([
      { kind: 'person', claim: 'sub', value: 'ann' },
      { kind: 'person', claim: 'upn', value: 'old@x' },
      { kind: 'group', value: '/audit' },
      { kind: 'observed', subject: 'carl', nameClaimValue: 'carl' },
    ]);
    expect(r.message).toContain('person sub=ann');
    expect(r.message).toContain('group /audit');
    expect(r.message).toContain('caller carl');
  });

  it('an observation just inside the window still counts', () => {
    const r = checkRoleRemoval({
      ...base,
      name: 'auditor',
      access: { ...EMPTY, customRoles: { auditor: [] } },
      observations: [observed({ roleClaimValues: ['auditor'], lastSeen: new Date(now.getTime() - 89 * day) })],
    });
    expect(r).toMatchObject({ ok: false, code: 'has_holders' });
  });
});

describe('rule 11: at least one route to admin', () => {
  const input = { access: EMPTY, claimNames: NAMES, roleClaimInUse: false, adminGrant: null };

  it('refuses when no route remains, naming the four routes', () => {
    const r = checkAdminRoute(input);
    expect(r).toEqual({ ok: false, code: 'no_admin_route', message: NO_ADMIN_ROUTE_MESSAGE, routes: Object.values(AdminRoute) });
    for (const words of ['a person granted admin', 'a group mapped onto admin', 'a role claim', 'SERVICE_ADMIN_GRANT']) {
      expect(NO_ADMIN_ROUTE_MESSAGE).toContain(words);
    }
  });

  it('a person granted admin under the name claim is a route (role name folds)', () => {
    const access = { ...EMPTY, personGrants: [{ claim: 'sub', value: 'ann', role: 'Admin' }] };
    expect(checkAdminRoute({ ...input, access })).toEqual({ ok: true, routes: ['person-grant'] });
  });

  it('a person grant under a claim no longer in force is not a route', () => {
    const access = { ...EMPTY, personGrants: [{ claim: 'upn', value: 'ann', role: 'admin' }] };
    expect(checkAdminRoute({ ...input, access }).ok).toBe(false);
  });

  it('a group mapped onto admin is a route', () => {
    expect(checkAdminRoute({ ...input, access: { ...EMPTY, groupRoles: { ops: ['operator', 'ADMIN'] } } })).toEqual({
      ok: true,
      routes: ['group-mapping'],
    });
    expect(checkAdminRoute({ ...input, access: { ...EMPTY, groupRoles: { ops: ['operator'] } } }).ok).toBe(false);
  });

  it('a role claim the installation reads is a route', () => {
    expect(checkAdminRoute({ ...input, roleClaimInUse: true })).toEqual({ ok: true, routes: ['role-claim'] });
    expect(checkAdminRoute({ ...input, roleClaimInUse: true, claimNames: { ...NAMES, role_claim: '' } }).ok).toBe(false);
  });

  it('a non-empty SERVICE_ADMIN_GRANT is a route only when an entry actually grants', () => {
    expect(checkAdminRoute({ ...input, adminGrant: 'group:admins' })).toEqual({ ok: true, routes: ['admin-grant'] });
    expect(checkAdminRoute({ ...input, adminGrant: 'alice' }).ok).toBe(false);
    expect(checkAdminRoute({ ...input, adminGrant: ' , ' }).ok).toBe(false);
  });

  it('a custom role cannot stand in for admin', () => {
    const access = { ...EMPTY, customRoles: { superuser: ['access.write'] }, groupRoles: { g: ['superuser'] } };
    expect(checkAdminRoute({ ...input, access }).ok).toBe(false);
  });

  it('lists every route present', () => {
    const r = checkAdminRoute({
      access: { ...EMPTY, groupRoles: { g: ['admin'] }, personGrants: [{ claim: 'sub', value: 'a', role: 'admin' }] },
      claimNames: NAMES,
      roleClaimInUse: true,
      adminGrant: 'sub:a',
    });
    expect(r).toEqual({ ok: true, routes: ['person-grant', 'group-mapping', 'role-claim', 'admin-grant'] });
  });
});

describe('standing findings', () => {
  it('rule 6: warns whenever name_claim is not sub', () => {
    expect(nameClaimWarning(NAMES)).toBeNull();
    expect(nameClaimWarning({ ...NAMES, name_claim: 'preferred_username' })).toMatchObject({
      subsystem: 'auth',
      severity: 'advisory',
      field: 'auth.name_claim',
    });
  });

  it('a legacy role naming a removed permission keeps its findings entry', () => {
    const f = customRoleFindings({ legacy: ['runs.read', 'jobs.read'], fine: ['runs.read'], Admin: ['runs.read'] });
    expect(f).toHaveLength(2);
    expect(f.map((x) => x.reason).join('\n')).toContain('jobs.read');
    expect(f.map((x) => x.reason).join('\n')).toContain("built-in role 'admin'");
  });
});
