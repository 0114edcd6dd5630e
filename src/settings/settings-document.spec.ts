import { describe, expect, it } from 'vitest';
import { checkSettingKey, settingCovering, withSettings } from './settings-document.js';

describe('setting keys', () => {
  it('accepts dotted keys and refuses bootstrap settings, the secrets block and malformed keys', () => {
    expect(checkSettingKey('queue.max_parallel_runs')).toEqual({ ok: true, path: ['queue', 'max_parallel_runs'] });
    expect(checkSettingKey('auth.authority')).toMatchObject({ ok: false, code: 'bootstrap_setting' });
    expect(checkSettingKey('auth')).toMatchObject({ ok: false, code: 'bootstrap_setting' });
    expect(checkSettingKey('auth.enforce.x')).toMatchObject({ ok: false, code: 'bootstrap_setting' });
    expect(checkSettingKey('auth.name_claim')).toMatchObject({ ok: false, code: 'not_a_setting', error: expect.stringContaining('PUT /api/access/claims') });
    expect(checkSettingKey('auth.group_roles.ops')).toMatchObject({ ok: false, code: 'not_a_setting', error: expect.stringContaining('access records') });
    expect(checkSettingKey('secrets.TOKEN')).toMatchObject({ ok: false, code: 'not_a_setting' });
    for (const bad of ['', 'a..b', '.a', 'a b', 'a/b', '__x__.y z']) expect(checkSettingKey(bad)).toMatchObject({ ok: false, code: 'invalid_key' });
  });
});

describe('withSettings', () => {
  it('lays settings over a copy of the file, shorter keys first, replacing non-mappings on the way', () => {
    const file = { queue: { max_parallel_runs: 2, lease_ttl_seconds: 30 }, projects: { shop: { tracker: 'x' } }, runs: 5 };
    const merged = withSettings(file, { 'queue.max_parallel_runs': 8, 'projects.shop.trigger': { statuses: ['Ready'] }, 'runs.keep': 1, projects: { shop: { tracker: 'y' } } });
    expect(merged).toEqual({
      queue: { max_parallel_runs: 8, lease_ttl_seconds: 30 },
      projects: { shop: { tracker: 'y', trigger: { statuses: ['Ready'] } } },
      runs: { keep: 1 },
    });
    expect(file.queue.max_parallel_runs).toBe(2);
    expect(withSettings(null, { 'a.b': 1 })).toEqual({ a: { b: 1 } });
  });

  it('names the stored key that decides a value', () => {
    const settings = { projects: {}, 'projects.shop.trigger': {} };
    expect(settingCovering('projects.shop.trigger.statuses[0]', settings)).toBe('projects.shop.trigger');
    expect(settingCovering('projects.web.tracker', settings)).toBe('projects');
    expect(settingCovering('queue.max_parallel_runs', settings)).toBeNull();
  });
});
