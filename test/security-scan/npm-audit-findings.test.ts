import { describe, expect, it } from 'vitest';
import { npmAuditFindings } from '../../src/pipelines/security-scan/scanners/npm-audit-findings.js';

describe('reading npm audit --json', () => {
  it('never throws on output it cannot read, and says why', () => {
    expect(npmAuditFindings('', new Map(), null)).toEqual({ ok: false, reason: 'npm audit printed nothing' });
    expect(npmAuditFindings('npm ERR! something', new Map(), null)).toEqual({ ok: false, reason: 'npm audit printed something other than its JSON report' });
    expect(npmAuditFindings('[1,2]', new Map(), null)).toEqual({ ok: false, reason: 'npm audit printed something other than its JSON report' });
    expect(npmAuditFindings('{"advisories": {}}', new Map(), null)).toMatchObject({ ok: false, reason: expect.stringContaining('npm 6 format') });
    expect(npmAuditFindings('{"error": {"code": "ENOLOCK", "summary": "This command requires an existing lockfile."}}', new Map(), null)).toEqual({
      ok: false,
      reason: 'npm audit failed: ENOLOCK This command requires an existing lockfile.',
    });
  });

  it('does not repeat credentials from a registry URL', () => {
    const output = JSON.stringify({ message: 'request to https://user:s3cr3tPassw0rd@registry.example.test/-/npm/v1/security/advisories/bulk failed, reason: getaddrinfo ENOTFOUND registry.example.test' });
    const outcome = npmAuditFindings(output, new Map(), null);
    expect(outcome).toEqual({ ok: false, reason: 'npm audit could not reach the registry (ENOTFOUND): the sandbox has no network, or the registry is down' });
    const other = npmAuditFindings(JSON.stringify({ message: 'E500 https://user:s3cr3tPassw0rd@registry.example.test/x' }), new Map(), null);
    expect(JSON.stringify(other)).not.toContain('s3cr3tPassw0rd');
  });

  it('takes odd entries as they come: no name, no advisories, unknown severity', () => {
    const output = JSON.stringify({ auditReportVersion: 2, vulnerabilities: { odd: { via: 'x', nodes: 5, severity: 'weird', fixAvailable: { name: 7 } }, gone: null } });
    const outcome = npmAuditFindings(output, new Map(), 'web');
    expect(outcome).toEqual({
      ok: true,
      findings: [
        expect.objectContaining({ ruleId: 'npm-audit/odd', severity: 'info', title: 'odd some versions: vulnerable through its dependencies', line: 1, repo: 'web', path: 'package-lock.json' }),
      ],
    });
  });
});
