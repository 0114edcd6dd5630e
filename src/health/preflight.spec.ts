import { describe, expect, it } from 'vitest';
import { type PreflightCheck, reportOf } from './preflight.js';
import { PreflightService } from './preflight.service.js';

const check = (name: string, status: PreflightCheck['status'], message = `${name} ${status}`, fix_hint = ''): PreflightCheck =>
  ({ name, category: 'dependencies', status, message, fix_hint });

describe('reportOf', () => {
  it('null checks → pending with zero counts and no completion time', () => {
    expect(reportOf(null, null)).toEqual({ status: 'pending', completed_at_utc: null, passed: 0, failed: 0, skipped: 0, failures: [] });
    expect(reportOf(null, new Date()).status).toBe('pending');
  });

  it('all passing or skipped → pass', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(reportOf([check('database', 'pass'), check('redis', 'skip'), check('config-file', 'skip')], at)).toEqual({
      status: 'pass', completed_at_utc: '2026-01-02T03:04:05.678Z', passed: 1, failed: 0, skipped: 2, failures: [],
    });
  });

  it('no checks at all (completed) → pass', () => {
    expect(reportOf([], new Date(0))).toMatchObject({ status: 'pass', passed: 0, failed: 0, skipped: 0 });
  });

  it('any failure → fail, each failure with name, message and fix_hint only', () => {
    const report = reportOf([
      check('database', 'fail', 'database unreachable', 'start the database'),
      check('sandbox-backend', 'pass'),
      check('redis', 'fail', 'store unreachable', 'start Redis'),
    ], new Date(0));
    expect(report).toEqual({
      status: 'fail', completed_at_utc: '1970-01-01T00:00:00.000Z', passed: 1, failed: 2, skipped: 0,
      failures: [
        { name: 'database', message: 'database unreachable', fix_hint: 'start the database' },
        { name: 'redis', message: 'store unreachable', fix_hint: 'start Redis' },
      ],
    });
  });
});

describe('PreflightService', () => {
  it('is pending until complete(); a re-recorded check replaces the earlier result', () => {
    const service = new PreflightService();
    service.record(check('database', 'fail', 'down', 'start it'));
    expect(service.isComplete).toBe(false);
    expect(service.report().status).toBe('pending');
    service.complete();
    expect(service.report()).toMatchObject({ status: 'fail', failed: 1 });
    expect(Number.isNaN(Date.parse(service.report().completed_at_utc ?? ''))).toBe(false);
    service.record(check('database', 'pass'));
    expect(service.report()).toMatchObject({ status: 'pass', passed: 1, failed: 0, failures: [] });
    expect(service.list()).toHaveLength(1);
  });
});
