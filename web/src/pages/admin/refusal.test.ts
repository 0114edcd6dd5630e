import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { refusalOf, splitByField } from './refusal';

const refused = (status: number, body: Record<string, unknown>) => new ApiError(status, body, '/api/x');

describe('a refusal, shown where the person acted', () => {
  it('puts a built-in name on the name field and unknown permissions on the permissions field', () => {
    expect(refusalOf(refused(422, { error: 'admin is built in', code: 'builtin_name' })).fields['name']).toHaveLength(1);
    const unknown = refusalOf(refused(422, { error: 'x', code: 'unknown_permission', unknownPermissions: ['Runs.Read'] }));
    expect(unknown.fields['permissions']![0]).toContain('Runs.Read');
    expect(unknown.items).toEqual([]);
  });

  it('names every holder of a role still held, of each kind', () => {
    const r = refusalOf(refused(409, {
      error: 'role auditor is still held', code: 'has_holders',
      holders: [{ kind: 'person', claim: 'sub', value: 'ann' }, { kind: 'group', value: 'ops' }, { kind: 'observed', subject: 's-1', nameClaimValue: null }],
    }));
    expect(r.items).toEqual(['person sub=ann (granted here)', 'group ops (mapped onto it)', 'caller s-1 (seen with it in the role claim)']);
    expect(r.message).toContain('Withdraw it from each holder first');
  });

  it('names the four routes to admin when none would be left', () => {
    const r = refusalOf(refused(409, { error: 'no route', code: 'no_admin_route', routes: ['person-grant', 'group-mapping', 'role-claim', 'admin-grant'], routesBefore: ['person-grant'] }));
    expect(r.items).toHaveLength(4);
    expect(r.items.join(' ')).toMatch(/person granted admin.*group mapped onto admin.*role claim.*SERVICE_ADMIN_GRANT/);
  });

  it('files a setting refusal\'s findings under their fields, and keeps the rest for the top of the form', () => {
    const r = refusalOf(refused(422, {
      error: 'refused', code: 'invalid_setting',
      findings: [{ field: 'queue.max_parallel_runs', severity: 'blocking', reason: 'must be a positive integer' }, { field: null, severity: 'advisory', reason: 'general' }],
    }));
    expect(r.fields['queue.max_parallel_runs']).toEqual(['Blocking: must be a positive integer']);
    const split = splitByField(r, ['queue.max_parallel_runs']);
    expect(split.at('queue.max_parallel_runs')).toHaveLength(1);
    expect(split.rest).toEqual(['configuration: general']);
  });

  it('lists every problem of a refused import, and the tables of a non-empty restore target', () => {
    const imp = refusalOf(refused(422, { error: 'invalid_import', problems: [{ path: 'version', error: 'must be 1' }, { path: '', error: 'not a mapping' }] }));
    expect(imp.code).toBe('invalid_import');
    expect(imp.items).toEqual(['version: must be 1', '(document): not a mapping']);
    expect(refusalOf(refused(409, { error: 'x', code: 'not_empty', tables: ['runs', 'secrets'] })).items).toEqual(['runs', 'secrets']);
  });

  it('names the newer changes to revert first, and the missing permission of a 403', () => {
    expect(refusalOf(refused(409, { error: 'x', code: 'newer_change', newerChanges: [9, 7] })).items).toEqual(['change #9', 'change #7']);
    expect(refusalOf(refused(403, { missingPermissions: ['access.write'] })).message).toContain('access.write');
  });

  it('keeps the message of an error that is not an answer', () => {
    expect(refusalOf(new Error('network down'))).toEqual({ code: null, message: 'network down', items: [], fields: {} });
  });
});
