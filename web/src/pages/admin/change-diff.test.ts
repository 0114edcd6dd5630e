import { describe, expect, it } from 'vitest';
import { changeDiff, isRevertible } from './change-diff';
import { parseSettingInput, settingInputText } from './setting-input';

describe('a change\'s before and after', () => {
  it('shows a setting whose value changed', () => {
    expect(changeDiff({ key: 'queue.max_parallel_runs', value: 4 }, { key: 'queue.max_parallel_runs', value: 8 }))
      .toEqual([{ path: 'value', before: '4', after: '8', kind: 'changed' }]);
  });

  it('shows creation and removal of the whole target', () => {
    expect(changeDiff(null, { name: 'auditor', permissions: ['runs.read'] })).toEqual([
      { path: 'name', before: null, after: 'auditor', kind: 'added' }, { path: 'permissions', before: null, after: '["runs.read"]', kind: 'added' },
    ]);
    expect(changeDiff({ name: 'T', value: '***' }, null)).toEqual([
      { path: 'name', before: 'T', after: null, kind: 'removed' }, { path: 'value', before: '***', after: null, kind: 'removed' },
    ]);
    expect(changeDiff(null, 'x')).toEqual([{ path: '(whole)', before: null, after: 'x', kind: 'added' }]);
    expect(changeDiff(4, 8)).toEqual([{ path: '(whole)', before: '4', after: '8', kind: 'changed' }]);
  });

  it('walks nested blocks and arrays of records, leaving out what did not change', () => {
    const before = { value: { repos: [{ name: 'web', url: 'a' }], max: 1 } };
    const after = { value: { repos: [{ name: 'web', url: 'b' }, { name: 'api', url: 'c' }], max: 1 } };
    expect(changeDiff(before, after)).toEqual([
      { path: 'value.repos[0].url', before: 'a', after: 'b', kind: 'changed' },
      { path: 'value.repos[1].name', before: null, after: 'api', kind: 'added' },
      { path: 'value.repos[1].url', before: null, after: 'c', kind: 'added' },
    ]);
  });

  it('keeps a masked secret masked (it is shown as the feed gives it)', () => {
    expect(changeDiff({ name: 'T', value: '***' }, { name: 'T', value: '***' })).toEqual([]);
  });

  it('offers no revert for an import or a restore', () => {
    expect(isRevertible('config.import')).toBe(false);
    expect(isRevertible('archive.restore')).toBe(false);
    expect(isRevertible('setting.put')).toBe(true);
  });
});

describe('a setting typed on the page', () => {
  it('stays text where the value in force is text', () => {
    expect(parseSettingInput('8', 'x')).toEqual({ ok: true, value: '8' });
    expect(parseSettingInput('${TOKEN}', '${OLD}')).toEqual({ ok: true, value: '${TOKEN}' });
  });

  it('is JSON elsewhere, text when it is not JSON, and refused when it looks like broken JSON', () => {
    expect(parseSettingInput(' 8 ', 4)).toEqual({ ok: true, value: 8 });
    expect(parseSettingInput('null', 4)).toEqual({ ok: true, value: null });
    expect(parseSettingInput('["a"]', undefined)).toEqual({ ok: true, value: ['a'] });
    expect(parseSettingInput('gpt-4o', undefined)).toEqual({ ok: true, value: 'gpt-4o' });
    expect(parseSettingInput('{"a": 1', undefined).ok).toBe(false);
    expect(parseSettingInput('  ', 4).ok).toBe(false);
  });

  it('never offers a masked value back', () => {
    expect(settingInputText('***')).toBe('');
    expect(settingInputText(4)).toBe('4');
    expect(settingInputText('text')).toBe('text');
  });
});

describe('which keys the page offers to edit', () => {
  it('sends bootstrap settings to the file, the secrets block to Secrets and the rest of auth to Access', async () => {
    const { notEditableReason } = await import('./setting-input');
    expect(notEditableReason('auth.enforce')).toMatch(/restart/);
    expect(notEditableReason('secrets.TOKEN')).toMatch(/Secrets/);
    expect(notEditableReason('auth.group_roles.ops[0]')).toMatch(/Access/);
    expect(notEditableReason('queue.max_parallel_runs')).toBeNull();
    expect(notEditableReason('projects.shop.repos[0].url')).toBeNull();
  });
});
