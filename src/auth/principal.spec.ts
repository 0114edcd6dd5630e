import { describe, expect, it } from 'vitest';
import { attributionOf, identityResponseOf, missingPermissions, principalOf, type Principal } from './principal.js';
import { resolveRoles } from './role-resolution.js';

const names = { role_claim: 'roles', group_claim: 'groups', name_claim: 'preferred_username' };

function principal(claims: Record<string, unknown>): Principal {
  const resolution = resolveRoles({ claims, claimNames: names, access: { groupRoles: {}, personGrants: [], customRoles: {} } });
  return principalOf({ claims, roleClaim: names.role_claim, groupClaim: names.group_claim, nameClaim: names.name_claim, resolution });
}

describe('principal', () => {
  const p = principal({ sub: 's1', iss: 'https://idp/v2.0', ver: '2.0', preferred_username: 'ann@x', roles: ['reader'], groups: ['g'] });

  it('attribution is the name-claim value', () => {
    expect(attributionOf(p)).toBe('ann@x');
  });

  it('attribution without a principal, or without a name-claim value, is dashboard', () => {
    expect(attributionOf(null)).toBe('dashboard');
    expect(attributionOf(undefined)).toBe('dashboard');
    expect(attributionOf(principal({ sub: 's2' }))).toBe('dashboard');
  });

  it('identity response carries exactly the spec fields', () => {
    expect(identityResponseOf(p)).toEqual({
      authenticated: true,
      subject: 's1',
      issuer: 'https://idp/v2.0',
      roleClaim: 'roles',
      groupClaim: 'groups',
      roleClaimValues: ['reader'],
      groupClaimValues: ['g'],
      roles: ['reader'],
      permissions: ['catalog.read', 'diagnostics.read', 'identity.read', 'runs.read', 'runs.watch'],
      findings: [],
    });
    expect(p.tokenVersion).toBe('2.0');
  });

  it('missing permissions are required together', () => {
    expect(missingPermissions(p, ['runs.read', 'config.read', 'secrets.read'])).toEqual(['config.read', 'secrets.read']);
    expect(missingPermissions(null, ['identity.read'])).toEqual(['identity.read']);
  });
});
