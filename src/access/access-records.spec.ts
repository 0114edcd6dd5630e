import { describe, expect, it } from 'vitest';
import { type AccessState, planAccessChange } from './access-change.js';
import { type AccessRecords, accessRecordsOf, replacementChanges } from './access-records.js';
import { NO_STORED_CLAIM_NAMES } from './access-snapshot.js';

const configured = { role_claim: 'roles', group_claim: 'groups', name_claim: 'sub' };

const current: AccessState = {
  document: {
    personGrants: [{ claim: 'sub', value: 'old', role: 'auditor' }, { claim: 'sub', value: 'root', role: 'admin' }],
    groupRoles: { '/legacy-ops': ['operator'] },
    customRoles: { auditor: ['runs.read'] },
  },
  claimNames: NO_STORED_CLAIM_NAMES,
};

const target: AccessRecords = {
  claim_names: { role_claim: 'app_roles', group_claim: 'groups', name_claim: 'email' },
  people: [{ claim: 'email', value: 'ann@example.test', roles: ['admin', 'viewer'] }, { claim: 'email', value: 'bob@example.test', roles: [] }],
  groups: { ops: ['operator'] },
  roles: { viewer: ['catalog.read', 'runs.read'] },
};

/** Plans each change on the state the one before it left, as AccessWriter.planWithin does. */
function replay(state: AccessState, records: AccessRecords) {
  const steps = replacementChanges(accessRecordsOf(state, [], configured), records);
  let after = state;
  const refusals: string[] = [];
  for (const step of steps) {
    const plan = planAccessChange({ change: step.change, before: after, observations: [], observationWindowDays: 90, now: new Date(), attribution: 't' });
    if (plan.ok) after = plan.after;
    else refusals.push(`${step.path}: ${plan.refusal.code}`);
  }
  return { after, refusals, steps };
}

describe('access records', () => {
  it('describe grants and by-hand people, groups and roles sorted, with the claim names in force', () => {
    const records = accessRecordsOf(current, [{ claim: 'sub', value: 'zed' }, { claim: 'sub', value: 'old' }], configured);
    expect(records).toEqual({
      claim_names: configured,
      people: [{ claim: 'sub', value: 'old', roles: ['auditor'] }, { claim: 'sub', value: 'root', roles: ['admin'] }, { claim: 'sub', value: 'zed', roles: [] }],
      groups: { 'legacy-ops': ['operator'] },
      roles: { auditor: ['runs.read'] },
    });
  });

  it('a replacement, planned change by change, leaves exactly the target records', () => {
    const { after, refusals, steps } = replay(current, target);
    expect(refusals).toEqual([]);
    expect(accessRecordsOf(after, target.people, configured)).toEqual(target);
    expect(steps.map((s) => s.change.kind)).toEqual([
      'save-role', 'grant-person', 'grant-person', 'map-group', 'forget-person', 'forget-person', 'map-group', 'remove-role', 'save-claims',
    ]);
  });

  it('names where each refusal comes from, and what the target leaves out', () => {
    const bad: AccessRecords = { ...target, roles: { Admin: ['runs.read'], viewer: ['Runs.Read'] }, people: [{ claim: 'email', value: 'x', roles: ['nobody'] }] };
    expect(replay(current, bad).refusals).toEqual(['access.roles.Admin: builtin_name', 'access.roles.viewer: unknown_permission', 'access.people[0]: unknown_role']);
    const held: AccessState = { ...current, document: { ...current.document, groupRoles: { ...current.document.groupRoles, auditors: ['auditor'] } } };
    const keepsGroup: AccessRecords = { ...target, groups: { auditors: ['auditor'] } };
    const steps = replay(held, keepsGroup);
    expect(steps.refusals).toEqual(['access.roles: has_holders']);
    expect(steps.steps.find((s) => s.change.kind === 'remove-role')?.because).toBe('role auditor is not in the import, so it would be removed');
  });
});
