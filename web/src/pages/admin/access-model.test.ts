import { describe, expect, it } from 'vitest';
import { grantedRoles, nameClaimWarning, permissionMatrix, personRoles, roleSourceLabel } from './access-model';
import type { AccessPerson, AccessRoles } from './admin-types';

const claims = { role_claim: 'roles', group_claim: 'groups', name_claim: 'sub' };

function person(over: Partial<AccessPerson> = {}): AccessPerson {
  return { claim: 'sub', value: 'ann', subject: 'ann', lastSeen: null, signedIn: false, roles: [], roleSources: [], ...over };
}

describe('where a person\'s roles come from', () => {
  it('says each source in words, the bootstrap grant included', () => {
    expect(roleSourceLabel({ role: 'admin', via: 'role-claim', value: 'Admin' }, claims)).toBe('role claim roles: Admin');
    expect(roleSourceLabel({ role: 'operator', via: 'group', value: 'ops' })).toBe('group ops');
    expect(roleSourceLabel({ role: 'reader', via: 'person-grant', value: 'ann' })).toBe('granted here');
    expect(roleSourceLabel({ role: 'admin', via: 'admin-grant', value: 'sub:ann' })).toBe('bootstrap grant sub:ann');
  });

  it('groups the sources per role, marks the granted ones, and keeps a role with no source', () => {
    const p = person({
      roles: ['operator', 'admin', 'auditor'],
      roleSources: [
        { role: 'operator', via: 'group', value: 'ops' }, { role: 'operator', via: 'person-grant', value: 'ann' },
        { role: 'admin', via: 'admin-grant', value: 'sub:ann' },
      ],
    });
    expect(personRoles(p, claims)).toEqual([
      { role: 'admin', sources: ['bootstrap grant sub:ann'], granted: false },
      { role: 'auditor', sources: ['source not named'], granted: false },
      { role: 'operator', sources: ['group ops', 'granted here'], granted: true },
    ]);
    expect(grantedRoles(p)).toEqual(['operator']);
  });
});

describe('the permission matrix', () => {
  const data: AccessRoles = {
    permissions: ['access.read', 'runs.control', 'runs.read'],
    builtIn: [
      { name: 'reader', permissions: ['runs.read'], legacyPermissions: [], holders: 2 },
      { name: 'admin', permissions: ['access.read', 'runs.control', 'runs.read'], legacyPermissions: [], holders: 1 },
    ],
    custom: [{ name: 'auditor', permissions: ['runs.read'], legacyPermissions: ['runs.old'], holders: 0 }],
    findings: [],
  };

  it('has a column per role, built-in first, and rows grouped by the permission\'s area', () => {
    const m = permissionMatrix(data);
    expect(m.roles.map((r) => r.name)).toEqual(['reader', 'admin', 'auditor']);
    expect(m.groups.map((g) => [g.name, g.rows.map((r) => r.permission)])).toEqual([
      ['access', ['access.read']], ['runs', ['runs.control', 'runs.read']], ['not in the catalog', ['runs.old']],
    ]);
  });

  it('labels every cell so it reads on its own', () => {
    const runsRead = permissionMatrix(data).groups[1]!.rows[1]!;
    expect(runsRead.cells.map((c) => c.label)).toEqual(['reader holds runs.read', 'admin holds runs.read', 'auditor holds runs.read']);
    const control = permissionMatrix(data).groups[1]!.rows[0]!;
    expect(control.cells.map((c) => c.holds)).toEqual([false, true, false]);
    expect(permissionMatrix(data).groups[2]!.rows[0]!.cells[2]).toEqual({ role: 'auditor', holds: true, label: 'auditor holds runs.old' });
  });
});

describe('the name-claim warning (rule 6)', () => {
  it('is there for anything but sub', () => {
    expect(nameClaimWarning('sub')).toBeNull();
    expect(nameClaimWarning(' sub ')).toBeNull();
    expect(nameClaimWarning('email')).toContain('"email"');
  });
});
