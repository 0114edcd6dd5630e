import { describe, expect, it } from 'vitest';
import type { Finding } from '../../api/types';
import { type HealthResponse, nothingWrong, sortFindings, sortSubsystems } from './health-data';

const f = (severity: 'blocking' | 'advisory', subsystem: string, reason = 'r'): Finding => ({ subsystem, severity, reason, project: null, trigger: null, field: null });
const health = (over: Partial<HealthResponse> = {}): HealthResponse => ({
  status: 'ok', timestamp: '', preflight: { status: 'pass', completed_at_utc: null, passed: 3, failed: 0, skipped: 0, failures: [] },
  subsystems: [{ name: 'redis', state: 'up', reason: '', last_changed_utc: '' }, { name: 'poller', state: 'disabled', reason: '', last_changed_utc: '' }], ...over,
});

describe('findings and health', () => {
  it('puts blocking findings first, and down subsystems before degraded ones', () => {
    expect(sortFindings([f('advisory', 'auth'), f('blocking', 'redis'), f('advisory', 'build'), f('blocking', 'database')]).map((x) => `${x.severity} ${x.subsystem}`))
      .toEqual(['blocking database', 'blocking redis', 'advisory auth', 'advisory build']);
    expect(sortSubsystems([{ name: 'a', state: 'up' }, { name: 'b', state: 'degraded' }, { name: 'c', state: 'down' }]).map((s) => s.name)).toEqual(['c', 'b', 'a']);
  });

  it('says nothing is wrong only with no finding, passed checks and no subsystem down or degraded', () => {
    expect(nothingWrong([], health())).toBe(true);
    expect(nothingWrong([f('advisory', 'auth')], health())).toBe(false);
    expect(nothingWrong([], health({ preflight: { ...health().preflight, status: 'pending' } }))).toBe(false);
    expect(nothingWrong([], health({ subsystems: [{ name: 'redis', state: 'degraded', reason: 'x', last_changed_utc: '' }] }))).toBe(false);
    expect(nothingWrong(undefined, health())).toBe(false);
  });
});
