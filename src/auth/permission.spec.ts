import { describe, expect, it } from 'vitest';
import { BUILT_IN_ROLE_PERMISSIONS, builtInRoleOf, IMPLICIT_PERMISSIONS, isBuiltInRole } from './built-in-roles.js';
import { ALL_PERMISSIONS, isPermission, Permission } from './permission.js';

describe('permission catalog', () => {
  it('is closed: exactly the twenty names of the spec', () => {
    expect([...ALL_PERMISSIONS]).toEqual(
      [
        'runs.read', 'runs.watch', 'runs.control', 'runs.delete', 'projects.init', 'catalog.read', 'diagnostics.read',
        'diagnostics.probe', 'dialog.write', 'config.read', 'config.write', 'config.export', 'config.import',
        'secrets.read', 'secrets.write', 'access.read', 'access.write', 'archive.export', 'archive.import', 'identity.read',
      ].sort(),
    );
  });

  it('compares names exactly', () => {
    expect(isPermission('runs.read')).toBe(true);
    expect(isPermission('Runs.Read')).toBe(false);
    expect(isPermission(' runs.read')).toBe(false);
    expect(isPermission('runs')).toBe(false);
    expect(isPermission(42)).toBe(false);
  });
});

describe('built-in roles', () => {
  it('reader holds the five reading permissions and no config.read', () => {
    expect(BUILT_IN_ROLE_PERMISSIONS.reader).toEqual(
      ['catalog.read', 'diagnostics.read', 'identity.read', 'runs.read', 'runs.watch'],
    );
    expect(BUILT_IN_ROLE_PERMISSIONS.reader).not.toContain(Permission.ConfigRead);
  });

  it('operator holds reader plus the five operating permissions', () => {
    expect(BUILT_IN_ROLE_PERMISSIONS.operator).toEqual(
      [
        ...BUILT_IN_ROLE_PERMISSIONS.reader,
        'runs.control', 'runs.delete', 'projects.init', 'diagnostics.probe', 'dialog.write',
      ].sort(),
    );
  });

  it('admin holds every permission; only admin holds access.read/access.write', () => {
    expect(BUILT_IN_ROLE_PERMISSIONS.admin).toEqual(ALL_PERMISSIONS);
    for (const role of ['reader', 'operator'] as const) {
      expect(BUILT_IN_ROLE_PERMISSIONS[role]).not.toContain(Permission.AccessRead);
      expect(BUILT_IN_ROLE_PERMISSIONS[role]).not.toContain(Permission.AccessWrite);
    }
  });

  it('identity.read is implicit', () => {
    expect(IMPLICIT_PERMISSIONS).toEqual(['identity.read']);
  });

  it('role names fold case', () => {
    expect(isBuiltInRole('Admin')).toBe(true);
    expect(builtInRoleOf(' OPERATOR ')).toBe('operator');
    expect(builtInRoleOf('auditor')).toBeNull();
  });
});
