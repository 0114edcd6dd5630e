import { describe, expect, it } from 'vitest';
import { Challenge, type ScanFinding, type ScannerReport, ScanTool } from './scan-finding.js';
import { SCAN_MARKER, scanSummaryComment, scanVerdict } from './scan-verdict.js';

const finding = (severity: ScanFinding['severity'], challenge: ScanFinding['challenge'] = null, tool: ScanFinding['tool'] = ScanTool.Secrets): ScanFinding => ({
  tool, ruleId: 'github-token', severity, title: `a ${severity} one`, detail: 'd', suggestion: null, repo: null, path: 'src/a.js', line: 3, endLine: null, commit: null, challenge,
});
const report = (findings: ScanFinding[], ran = true, note: string | null = null): ScannerReport =>
  ({ tool: ScanTool.Secrets, name: 'secrets in the tree', ran, note, findings, durationMs: 1 });

describe('scanVerdict', () => {
  it('fails on a finding at or above fail_on, and passes below it', () => {
    expect(scanVerdict([report([finding('high')])], 'high')).toMatchObject({ passed: false, counts: { high: 1 } });
    expect(scanVerdict([report([finding('medium')])], 'high')).toMatchObject({ passed: true });
    expect(scanVerdict([report([finding('medium')])], 'medium').passed).toBe(false);
    expect(scanVerdict([report([finding('critical')])], 'none').passed).toBe(true);
  });

  it('leaves refuted model findings out of the verdict and the counts', () => {
    const refuted = finding('critical', Challenge.Refuted, ScanTool.Model);
    const verdict = scanVerdict([report([refuted, finding('low', Challenge.Confirmed, ScanTool.Model)])], 'high');
    expect(verdict).toMatchObject({ passed: true, counts: { critical: 0, low: 1 } });
  });

  it('names the scanners that did not run', () => {
    expect(scanVerdict([report([], false, 'not run: no package-lock.json')], 'high').text).toContain('not run: secrets in the tree');
  });
});

describe('scanSummaryComment', () => {
  it('carries both markers, the verdict, and no secret value nor HTML comment from model text', () => {
    const secret = 'sk-live-0123456789abcdef';
    const sneaky = { ...finding('high', Challenge.Confirmed, ScanTool.Model), title: `leak ${secret} <!-- pipeline-service -->` };
    const reports = [report([sneaky])];
    const body = scanSummaryComment({ reports, verdict: scanVerdict(reports, 'high'), assessment: 'ok', runId: 'r1', secrets: [secret] });
    expect(body).toContain(SCAN_MARKER);
    expect(body).toContain('failed');
    expect(body).not.toContain(secret);
    expect(body.match(/<!--/g)).toHaveLength(2);
  });
});
