import { describe, expect, it } from 'vitest';
import { FindingsService } from '../findings/findings.service.js';
import { BUILD_MISMATCH_WINDOW_MS, BuildMismatchService } from './build-mismatch.service.js';

describe('the build finding', () => {
  it('stands while a tab of another build calls, and clears once none has called for the window', () => {
    const findings = new FindingsService();
    const builds = new BuildMismatchService(findings);
    builds.serve('new');
    builds.observe('new', 0);
    expect(findings.all()).toEqual([]);
    builds.observe('old', 1000);
    expect(findings.all()).toHaveLength(1);
    expect(findings.all()[0]).toMatchObject({ subsystem: 'build', severity: 'advisory' });
    builds.observe('old', 1000 + BUILD_MISMATCH_WINDOW_MS - 1);
    builds.publish(1000 + BUILD_MISMATCH_WINDOW_MS);
    expect(findings.all()).toHaveLength(1);
    builds.publish(1000 + 2 * BUILD_MISMATCH_WINDOW_MS);
    expect(findings.all()).toEqual([]);
  });

  it('remembers a bounded number of foreign builds (the header is the caller\'s to choose)', () => {
    const findings = new FindingsService();
    const builds = new BuildMismatchService(findings);
    builds.serve('mine');
    for (let i = 0; i < 500; i++) builds.observe(`b${i}-${'x'.repeat(200)}`, i);
    const reason = findings.all()[0]!.reason;
    expect(reason.split(', ').length).toBeLessThanOrEqual(20);
    expect(reason.length).toBeLessThan(20 * 70 + 200);
  });
});
