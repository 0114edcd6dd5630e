import { describe, expect, it } from 'vitest';
import { type Finding, finding } from './finding.js';
import { FindingsService, summarize } from './findings.service.js';
import { checkFrom } from './startup-probe.js';

const blocking = (reason: string): Finding => finding('database', 'blocking', reason, { field: 'DATABASE_URL' });
const advisory = (reason: string): Finding => finding('config-file', 'advisory', reason);

describe('finding()', () => {
  it('fills project, trigger and field with null when not given', () => {
    expect(finding('redis', 'advisory', 'r')).toEqual({ subsystem: 'redis', severity: 'advisory', reason: 'r', project: null, trigger: null, field: null });
    expect(finding('configuration', 'blocking', 'r', { project: 'p', trigger: 't', field: 'f' }))
      .toEqual({ subsystem: 'configuration', severity: 'blocking', reason: 'r', project: 'p', trigger: 't', field: 'f' });
  });
});

describe('summarize', () => {
  it('no findings → not degraded, zero counts', () => {
    expect(summarize([])).toEqual({ degraded: false, blocking: 0, advisory: 0, findings: [] });
  });

  it('advisory findings alone do not degrade', () => {
    const all = [advisory('a'), advisory('b')];
    expect(summarize(all)).toEqual({ degraded: false, blocking: 0, advisory: 2, findings: all });
  });

  it('one blocking finding degrades; counts split by severity; order kept', () => {
    const all = [advisory('a'), blocking('b'), advisory('c'), blocking('d')];
    expect(summarize(all)).toEqual({ degraded: true, blocking: 2, advisory: 2, findings: all });
  });
});

describe('FindingsService', () => {
  it('each source replaces its own slot whole, and an empty list clears it', () => {
    const service = new FindingsService();
    service.set('configuration', [advisory('a')]);
    service.set('probe:database', [blocking('down')]);
    expect(service.response()).toMatchObject({ degraded: true, blocking: 1, advisory: 1 });
    service.set('probe:database', []);
    expect(service.response()).toEqual({ degraded: false, blocking: 0, advisory: 1, findings: [advisory('a')] });
    service.set('configuration', [advisory('x'), advisory('y')]);
    expect(service.all().map((f) => f.reason)).toEqual(['x', 'y']);
    service.clear('configuration');
    expect(service.all()).toEqual([]);
  });
});

describe('checkFrom', () => {
  const probe = { name: 'database', category: 'dependencies' };

  it('passes with the pass message when there is no finding', () => {
    expect(checkFrom(probe, [], 'reachable', 'hint')).toEqual({ name: 'database', category: 'dependencies', status: 'pass', message: 'reachable', fix_hint: '' });
  });

  it('passes with an advisory finding as its message', () => {
    expect(checkFrom(probe, [advisory('note')], 'reachable', 'hint')).toMatchObject({ status: 'pass', message: 'note', fix_hint: '' });
  });

  it('fails on a blocking finding, carrying its reason and the fix hint', () => {
    expect(checkFrom(probe, [advisory('note'), blocking('down')], 'reachable', 'start it')).toMatchObject({ status: 'fail', message: 'down', fix_hint: 'start it' });
  });
});
