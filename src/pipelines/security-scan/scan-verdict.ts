import type { FindingSeverity } from '../../agent/agent-types.js';
import { clipText } from '../../common/clip-text.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import { reachesFailThreshold } from '../../config/security-scan-config.reader.js';
import type { FailThreshold } from '../../config/service-config.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { Challenge, type ScanFinding, type ScannerReport } from './scan-finding.js';

/** Marks the scan's summary comment, so the next scan of the pull request edits it instead of adding one. */
export const SCAN_MARKER = '<!-- pipeline-service:security-scan -->';

const SEVERITIES: readonly FindingSeverity[] = ['critical', 'high', 'medium', 'low', 'info'];

export interface ScanVerdict {
  passed: boolean;
  /** One line: the run's error when it failed, its summary when it passed. */
  text: string;
  /** Counts of the findings that stand (refuted model findings left out), by severity. */
  counts: Record<FindingSeverity, number>;
}

/** The findings that count: every scanner finding, and model findings the refutation did not refute. */
export function standingFindings(reports: readonly ScannerReport[]): ScanFinding[] {
  return reports.flatMap((r) => r.findings).filter((f) => f.challenge !== Challenge.Refuted);
}

/** Spec: the run succeeds or fails on the configured threshold (`security_scan.fail_on`, default high). */
export function scanVerdict(reports: readonly ScannerReport[], failOn: FailThreshold): ScanVerdict {
  const standing = standingFindings(reports);
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, standing.filter((f) => f.severity === s).length])) as Record<FindingSeverity, number>;
  const listed = SEVERITIES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`).join(', ') || 'no findings';
  const failing = standing.filter((f) => reachesFailThreshold(f.severity, failOn));
  const skipped = reports.filter((r) => !r.ran).map((r) => r.name);
  const notRun = skipped.length > 0 ? `; not run: ${skipped.join(', ')}` : '';
  if (failing.length > 0) {
    return { passed: false, counts, text: `security-scan found ${failing.length} finding(s) at or above ${failOn} (${listed})${notRun}; see the run's report security-scan.md` };
  }
  return { passed: true, counts, text: `security-scan: ${listed}, none at or above ${failOn === 'none' ? 'the threshold (fail_on: none)' : failOn}${notRun}` };
}

export interface SummaryCommentInput {
  reports: readonly ScannerReport[];
  verdict: ScanVerdict;
  assessment: string;
  runId: string;
  secrets: readonly string[];
}

/** The comment on the pull request or ticket: the verdict, the standing findings, what did not run, where the report is. */
export function scanSummaryComment(input: SummaryCommentInput): string {
  const { verdict, secrets } = input;
  const clean = (text: string, max: number) => clipText(scrubSecrets(text, secrets).replace(/<!--[\s\S]*?-->/g, '').replace(/\s+/g, ' ').trim(), max);
  const out = [`### Security scan by pipeline-service: ${verdict.passed ? 'passed' : 'failed'}`, '', clean(verdict.text, 500), ''];
  const standing = standingFindings(input.reports).sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
  if (standing.length > 0) {
    out.push('| Severity | Where | Finding | Found by |', '|---|---|---|---|');
    for (const f of standing.slice(0, 50)) {
      const where = `${f.repo ? `${f.repo}/` : ''}${f.path}:${f.line}${f.commit ? ` (commit ${f.commit})` : ''}`;
      out.push(`| ${f.severity} | \`${clean(where, 200).replace(/[`|]/g, '')}\` | ${clean(f.title, 200).replace(/\|/g, '\\|')} | ${f.tool} |`);
    }
    if (standing.length > 50) out.push('', `… and ${standing.length - 50} more in the report.`);
  }
  const refuted = input.reports.flatMap((r) => r.findings).filter((f) => f.challenge === Challenge.Refuted).length;
  if (refuted > 0) out.push('', `${refuted} model finding(s) were refuted on a second look and are listed only in the report.`);
  for (const r of input.reports.filter((r) => !r.ran)) out.push('', `Not run: ${r.name} (${clean(r.note ?? 'no reason given', 300)}).`);
  if (input.assessment) out.push('', clean(input.assessment, 1500));
  out.push('', `SARIF and the full report: \`GET /api/runs/${input.runId}/artifacts\`.`);
  return `${out.join('\n')}\n\n${SERVICE_MARKER}\n${SCAN_MARKER}`;
}
