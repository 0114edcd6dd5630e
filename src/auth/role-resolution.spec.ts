import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from './permission.js';
import {
  normalizeGroupValue,
  parseAdminGrant,
  readClaimValues,
  resolveRoles,
  type AccessDocument,
  type ClaimNames,
  type RoleResolutionInput,
} from './role-resolution.js';

const NAMES: ClaimNames = { role_claim: 'roles', group_claim: 'groups', name_claim: 'sub' };
const EMPTY: AccessDocument = { groupRoles: {}, personGrants: [], customRoles: {} };

function resolve(claims: Record<string, unknown>, over: Partial<RoleResolutionInput> = {}) {
  return resolveRoles({ claims, claimNames: NAMES, access: EMPTY, ...over });
}
const reasons = (r: { findings: { reason: string }[] }): string => r.findings.map((f) => f.reason).join('\n');

describe('resolveRoles: basics', () => {
  it('a caller with no roles holds identity.read only', () => {
    const r = resolve({ sub: 'u1' });
    expect(r).toMatchObject({ subject: 'u1', nameClaimValue: 'u1', roles: [], permissions: ['identity.read'], findings: [] });
  });

  it('reads subject and the configured name claim separately', () => {
    const r = resolve({ sub: 'abc', upn: 'ann@example.test' }, { claimNames: { ...NAMES, name_claim: 'upn' } });
    expect(r.subject).toBe('abc');
    expect(r.nameClaimValue).toBe('ann@example.test');
  });

  it('missing sub and name claim give nulls', () => {
    expect(resolve({})).toMatchObject({ subject: null, nameClaimValue: null });
  });
});

describe('rule 1: roles from every source are unioned', () => {
  it('role claim + group + person grant', () => {
    const r = resolve(
      { sub: 'u1', roles: ['reader'], groups: ['ops'] },
      {
        access: {
          groupRoles: { ops: ['operator'] },
          personGrants: [{ claim: 'sub', value: 'u1', role: 'auditor' }],
          customRoles: { auditor: ['config.read'] },
        },
      },
    );
    expect(r.roles).toEqual(['auditor', 'operator', 'reader']);
    expect(r.permissions).toContain('config.read');
    expect(r.permissions).toContain('runs.control');
    expect(r.roleSources).toEqual([
      { role: 'auditor', via: 'person-grant', value: 'u1' },
      { role: 'operator', via: 'group', value: 'ops' },
      { role: 'reader', via: 'role-claim', value: 'reader' },
    ]);
  });

  it('two mapped groups give both bundles', () => {
    const r = resolve(
      { groups: ['a', 'b'] },
      { access: { ...EMPTY, groupRoles: { a: ['reader'], b: ['x-role'] }, customRoles: { 'x-role': ['secrets.read'] } } },
    );
    expect(r.roles).toEqual(['reader', 'x-role']);
    expect(r.permissions).toEqual(['catalog.read', 'diagnostics.read', 'identity.read', 'runs.read', 'runs.watch', 'secrets.read']);
  });

  it('admin from any source holds the whole catalog, sorted', () => {
    expect(resolve({ roles: 'admin' }).permissions).toEqual([...ALL_PERMISSIONS]);
  });
});

describe('rule 2: role names fold case', () => {
  it('Admin in the claim is admin', () => {
    expect(resolve({ roles: ['Admin', 'READER'] }).roles).toEqual(['admin', 'reader']);
  });
  it('custom role names fold too, in the claim, in mappings and in grants', () => {
    const r = resolve(
      { sub: 'u', roles: ['AUDITOR'], groups: ['g'] },
      {
        access: {
          groupRoles: { g: ['Auditor'] },
          personGrants: [{ claim: 'sub', value: 'u', role: 'auditor' }],
          customRoles: { Auditor: ['runs.read'] },
        },
      },
    );
    expect(r.roles).toEqual(['auditor']);
    expect(r.findings).toEqual([]);
  });
  it('a role value that names no role yields a finding and nothing else', () => {
    const r = resolve({ roles: ['reader', 'wizard'] });
    expect(r.roles).toEqual(['reader']);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ subsystem: 'auth', severity: 'advisory', field: 'auth.role_claim' });
    expect(r.findings[0]?.reason).toContain("'wizard'");
  });
  it('a legacy custom role colliding with a built-in does not override it', () => {
    const r = resolve({ roles: ['reader'] }, { access: { ...EMPTY, customRoles: { Reader: ['secrets.write'] } } });
    expect(r.permissions).not.toContain('secrets.write');
  });
  it('a legacy permission name on a custom role is ignored, the rest keeps working', () => {
    const r = resolve({ roles: ['old'] }, { access: { ...EMPTY, customRoles: { old: ['runs.read', 'jobs.read'] } } });
    expect(r.permissions).toEqual(['identity.read', 'runs.read']);
  });
});

describe('rule 3: group values compare exactly except one leading slash', () => {
  const access: AccessDocument = { ...EMPTY, groupRoles: { '/platform-admins': ['admin'], ops: ['operator'] } };
  it('a leading slash is removed on both sides', () => {
    expect(resolve({ groups: ['platform-admins'] }, { access }).roles).toEqual(['admin']);
    expect(resolve({ groups: ['/ops'] }, { access }).roles).toEqual(['operator']);
    expect(resolve({ groups: ['/platform-admins'] }, { access }).roles).toEqual(['admin']);
  });
  it('only one slash; case and whitespace are significant', () => {
    expect(resolve({ groups: ['//ops', 'OPS', 'ops '] }, { access }).roles).toEqual([]);
    expect(normalizeGroupValue('//a')).toBe('/a');
  });
  it('nested group paths are compared whole', () => {
    expect(resolve({ groups: ['/org/ops'] }, { access }).roles).toEqual([]);
  });
  it('a mapping to a missing role is reported', () => {
    const r = resolve({ groups: ['g'] }, { access: { ...EMPTY, groupRoles: { g: ['ghost'] } } });
    expect(r.roles).toEqual([]);
    expect(reasons(r)).toContain("'ghost'");
  });
});

describe('rule 4: SERVICE_ADMIN_GRANT', () => {
  it('sub: matches the sub claim only, ordinally', () => {
    expect(resolve({ sub: 'u1' }, { adminGrant: 'sub:u1' }).roles).toEqual(['admin']);
    expect(resolve({ sub: 'U1' }, { adminGrant: 'sub:u1' }).roles).toEqual([]);
    // not matched against the name claim or groups
    expect(
      resolve({ sub: 'x', upn: 'u1', groups: ['u1'] }, { adminGrant: 'sub:u1', claimNames: { ...NAMES, name_claim: 'upn' } }).roles,
    ).toEqual([]);
  });
  it('group: matches the group claim only, with the slash rule', () => {
    expect(resolve({ groups: ['/admins'] }, { adminGrant: 'group:admins' }).roles).toEqual(['admin']);
    expect(resolve({ sub: 'admins' }, { adminGrant: 'group:admins' }).roles).toEqual([]);
  });
  it('several entries, comma-separated, whitespace trimmed; source recorded', () => {
    const r = resolve({ sub: 'b' }, { adminGrant: ' group:x , sub:b ,' });
    expect(r.roles).toEqual(['admin']);
    expect(r.roleSources).toEqual([{ role: 'admin', via: 'admin-grant', value: 'sub:b' }]);
  });
  it('an unprefixed entry grants nothing and is a finding', () => {
    const r = resolve({ sub: 'alice' }, { adminGrant: 'alice' });
    expect(r.roles).toEqual([]);
    expect(r.findings[0]).toMatchObject({ field: 'SERVICE_ADMIN_GRANT', subsystem: 'auth' });
    expect(r.findings[0]?.reason).toContain("'alice'");
    const other = resolve({ sub: 'alice' }, { adminGrant: 'upn:alice' });
    expect(other.roles).toEqual([]);
    expect(other.findings).toHaveLength(1);
  });
  it('parseAdminGrant: entries and findings', () => {
    expect(parseAdminGrant(null)).toEqual({ entries: [], findings: [] });
    const p = parseAdminGrant(['group:/a,sub:b', 'c', 'sub:']);
    expect(p.entries).toEqual([
      { claim: 'group', value: '/a' },
      { claim: 'sub', value: 'b' },
    ]);
    expect(p.findings).toHaveLength(2);
  });
  it('a value may itself contain a colon', () => {
    expect(resolve({ sub: 'auth0|x:y' }, { adminGrant: 'sub:auth0|x:y' }).roles).toEqual(['admin']);
  });
});

describe('rule 5: person grants', () => {
  const access: AccessDocument = { ...EMPTY, personGrants: [{ claim: 'upn', value: 'Ann@example.test', role: 'operator' }] };
  const upn: ClaimNames = { ...NAMES, name_claim: 'upn' };
  it('resolve while their claim is the name claim; values compare ordinally', () => {
    expect(resolve({ upn: 'Ann@example.test' }, { access, claimNames: upn }).roles).toEqual(['operator']);
    expect(resolve({ upn: 'ann@example.test' }, { access, claimNames: upn }).roles).toEqual([]);
  });
  it('a grant whose claim is no longer in force grants nothing and yields a finding about the caller', () => {
    const r = resolve({ sub: 's', upn: 'Ann@example.test' }, { access });
    expect(r.roles).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ field: 'auth.name_claim', severity: 'advisory' });
    expect(r.findings[0]?.reason).toContain("'upn' is not the configured name_claim 'sub'");
  });
  it('grants for other people are not findings about this caller', () => {
    expect(resolve({ sub: 's', upn: 'bob@example.test' }, { access }).findings).toEqual([]);
  });
});

describe('claim shapes (string, array; nested → rule 7)', () => {
  it('a string claim is one value, never split on spaces', () => {
    expect(readClaimValues({ roles: 'reader operator' }, 'roles')).toEqual({ values: ['reader operator'], nested: false });
    expect(resolve({ groups: 'Domain Users' }, { access: { ...EMPTY, groupRoles: { 'Domain Users': ['reader'] } } }).roles).toEqual([
      'reader',
    ]);
  });
  it('arrays de-duplicate; numbers become text', () => {
    expect(readClaimValues({ g: ['a', 'a', 7] }, 'g')).toEqual({ values: ['a', '7'], nested: false });
  });
  it('an object claim is nested and reported', () => {
    const r = resolve({ roles: { realm: ['admin'] } });
    expect(r.roles).toEqual([]);
    expect(r.findings[0]?.reason).toMatch(/nested or JSON-text/);
  });
  it('JSON text is nested and reported', () => {
    const r = resolve({ roles: '{"roles":["admin"]}' });
    expect(r.roles).toEqual([]);
    expect(r.findings[0]?.field).toBe('auth.role_claim');
  });
  it('a dotted role_claim path is not followed', () => {
    const r = resolve({ realm_access: { roles: ['admin'] } }, { claimNames: { ...NAMES, role_claim: 'realm_access.roles' } });
    expect(r.roles).toEqual([]);
    expect(r.findings[0]?.reason).toMatch(/nested path/);
  });
  it('a flat claim literally named with a dot is read', () => {
    expect(resolve({ 'app.roles': ['reader'] }, { claimNames: { ...NAMES, role_claim: 'app.roles' } }).roles).toEqual(['reader']);
  });
  it('custom claim names are honoured', () => {
    const r = resolve(
      { app_roles: ['operator'], memberOf: ['x'] },
      { claimNames: { ...NAMES, role_claim: 'app_roles', group_claim: 'memberOf' }, access: { ...EMPTY, groupRoles: { x: ['reader'] } } },
    );
    expect(r.roles).toEqual(['operator', 'reader']);
    expect(r.roleClaimValues).toEqual(['operator']);
    expect(r.groupClaimValues).toEqual(['x']);
  });
});

describe('rule 8: group-claim overflow markers', () => {
  const access: AccessDocument = { ...EMPTY, groupRoles: { g: ['admin'] } };
  it.each([
    [{ _claim_names: { groups: 'src1' }, _claim_sources: { src1: { endpoint: 'https://graph' } } }, '_claim_names, _claim_sources'],
    [{ hasgroups: true }, 'hasgroups'],
    [{ hasgroups: 'true' }, 'hasgroups'],
  ])('%j is reported as itself', (claims, named) => {
    const r = resolve({ sub: 'u', ...claims }, { access });
    expect(r.roles).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]?.reason).toContain(named);
    expect(r.findings[0]?.reason).toContain('no group mapping can resolve this caller');
  });
  it('the role claim still resolves alongside the marker', () => {
    expect(resolve({ hasgroups: true, roles: ['operator'] }, { access }).roles).toEqual(['operator']);
  });
  it('no finding when the groups did arrive', () => {
    expect(resolve({ groups: ['g'], hasgroups: false }, { access }).findings).toEqual([]);
  });
});

describe('output ordering', () => {
  it('roles and permissions sorted, findings de-duplicated', () => {
    const r = resolve({ roles: ['Reader', 'operator', 'nope', 'NOPE'] });
    expect(r.roles).toEqual(['operator', 'reader']);
    expect([...r.permissions]).toEqual([...r.permissions].sort());
    expect(r.findings).toHaveLength(2); // 'nope' and 'NOPE' are reported as they arrived
  });
});
