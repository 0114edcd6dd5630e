import { describe, expect, it } from 'vitest';
import type { TokenRefusal } from '../../api/types';
import { REFUSAL_CHECKS, comparisonRows, mergeFindings, refusalCheck, refusalToShow, scopeAudienceFindings, versionOfIssuer } from './identity-checks';

function refused(reason: string, detail: Partial<NonNullable<TokenRefusal['detail']>> = {}): TokenRefusal {
  return {
    reason, message: `refused: ${reason}`,
    detail: {
      expectedAuthority: 'https://login.example.com/tenant/v2.0', expectedAudience: 'api-client-id', expectedIssuer: 'https://login.example.com/tenant/v2.0',
      presentedAudience: 'api-client-id', presentedIssuer: 'https://login.example.com/tenant/v2.0', presentedVersion: '2.0', message: 'm', ...detail,
    },
  };
}
const row = (rows: ReturnType<typeof comparisonRows>, label: string) => rows.find((r) => r.label === label)!;

describe('refusal → comparison rows', () => {
  it('puts the expected audience beside the one the token carried and marks the refusing check', () => {
    const rows = comparisonRows(refused('audience', { presentedAudience: ['api://api-client-id', 'other'] }));
    expect(rows.map((r) => r.label)).toEqual(['Authority', 'Audience', 'Issuer', 'Token version']);
    expect(row(rows, 'Audience')).toEqual({ label: 'Audience', expected: 'api-client-id', presented: 'api://api-client-id, other', differs: true, refusing: true });
    expect(row(rows, 'Issuer')).toMatchObject({ differs: false, refusing: false });
    expect(rows.filter((r) => r.refusing)).toHaveLength(1);
  });

  it('shows a version-1 token against a version-2 authority on the issuer row and the version row', () => {
    const rows = comparisonRows(refused('issuer', { presentedIssuer: 'https://sts.windows.net/tenant/', presentedVersion: '1.0' }));
    expect(row(rows, 'Issuer')).toMatchObject({ presented: 'https://sts.windows.net/tenant/', differs: true, refusing: true });
    expect(row(rows, 'Token version')).toEqual({ label: 'Token version', expected: '2.0', presented: '1.0', differs: true, refusing: false });
    expect(row(rows, 'Audience')).toMatchObject({ differs: false, refusing: false });
  });

  it('says what is unknown rather than comparing it (authority never reached, claims absent)', () => {
    const rows = comparisonRows(refused('signature', { expectedIssuer: null, presentedAudience: null, presentedVersion: null }));
    expect(row(rows, 'Issuer')).toMatchObject({ expected: 'the authority was not reached', differs: false });
    expect(row(rows, 'Audience')).toMatchObject({ presented: '—', differs: false });
    expect(row(rows, 'Token version')).toMatchObject({ expected: '2.0', presented: '—', differs: false });
    expect(row(rows, 'Authority').refusing).toBe(true);
    expect(comparisonRows({ reason: 'missing', message: 'no token', detail: null })).toEqual([]);
  });

  it('names the check of every reason the server sends, and an unknown one as it came', () => {
    for (const reason of ['missing', 'malformed', 'signature', 'expired', 'audience', 'issuer', 'temporarily_unavailable', 'not_configured']) {
      expect(REFUSAL_CHECKS[reason]?.explain, reason).toBeTruthy();
    }
    expect(refusalCheck('expired').check).toBe('expiry');
    expect(refusalCheck('audience').check).toBe('audience');
    expect(refusalCheck('strange').check).toBe('strange');
  });

  it('reads the version a v1 or v2 issuer implies', () => {
    expect(versionOfIssuer('https://login.microsoftonline.com/t/v2.0')).toBe('2.0');
    expect(versionOfIssuer('https://sts.windows.net/t/')).toBe('1.0');
    expect(versionOfIssuer('https://idp.example')).toBeNull();
    expect(versionOfIssuer(null)).toBeNull();
  });

  it('prefers the identity call\'s own refusal, then the identity\'s, then the last one seen', () => {
    const a = refused('audience');
    const b = refused('issuer');
    const c = refused('expired');
    expect(refusalToShow(a, b, c)).toBe(a);
    expect(refusalToShow(null, b, c)).toBe(b);
    expect(refusalToShow(null, undefined, c)).toBe(c);
    expect(refusalToShow(null, undefined, null)).toBeNull();
  });
});

describe('scopes naming another resource than the audience', () => {
  it('finds a scope of another API, with the server\'s sentence', () => {
    expect(scopeAudienceFindings('openid profile offline_access api://other-api/access', 'api-client-id')).toEqual([{
      subsystem: 'auth', severity: 'advisory', project: null, trigger: null, field: 'SERVICE_AUTH_SCOPES',
      reason: 'the dashboard asks for scopes of resource api://other-api, but the server\'s audience is api-client-id: its tokens will be refused on audience',
    }]);
  });

  it('accepts the audience itself or its api:// form, and checks nothing without an audience', () => {
    expect(scopeAudienceFindings('openid api://api-client-id/read api://api-client-id/write', 'api-client-id')).toEqual([]);
    expect(scopeAudienceFindings('openid https://api.example/read', 'https://api.example')).toEqual([]);
    expect(scopeAudienceFindings('openid api://other/read', null)).toEqual([]);
    expect(scopeAudienceFindings('openid profile offline_access', 'api-client-id')).toEqual([]);
    expect(scopeAudienceFindings('api://x/a api://x/b', 'y')).toHaveLength(1);
  });

  it('shows the server\'s finding once when both found it', () => {
    const local = scopeAudienceFindings('api://other/read', 'aud');
    const server = [{ ...local[0]! }, { subsystem: 'auth', severity: 'advisory' as const, reason: 'name claim', project: null, trigger: null, field: null }];
    expect(mergeFindings(server, local)).toEqual(server);
    expect(mergeFindings([], local)).toEqual(local);
  });
});
