import { SEVERITY_ORDER, severityRank } from './finding-severity-scale.js';
import { type ScanFinding, type ScannerReport, ScanTool } from './scan-finding.js';
import { whyNot } from './scanner-notes.js';
import { maskSecrets } from './scanners/secret-matcher.js';

export interface ScanReportOptions {
  /** The report's heading (default `Security scan`). */
  title?: string;
}

/**
 * The markdown report stored with a run: counts by severity, the scanners and what each did (the
 * ones that did not run, and why), a table of findings, then each finding's detail. Secrets appear
 * only as the scanners' masked previews; free text is masked again in case a model quoted one.
 */
export function renderScanReport(reports: readonly ScannerReport[], options: ScanReportOptions = {}): string {
  const findings = reports.flatMap((report) => report.findings).sort((a, b) => severityRank(a.severity) - severityRank(b.severity));
  const lines: string[] = [`# ${options.title ?? 'Security scan'}`, ''];
  const counts = SEVERITY_ORDER.map((severity) => `${findings.filter((f) => f.severity === severity).length} ${severity}`);
  lines.push(`**${findings.length} finding${findings.length === 1 ? '' : 's'}**: ${counts.join(', ')}.`, '');

  lines.push('## Scanners', '', '| Scanner | Result | Time |', '| --- | --- | --- |');
  for (const report of reports) {
    const result = report.ran ? `${report.findings.length} finding${report.findings.length === 1 ? '' : 's'}${report.note ? ` (${report.note})` : ''}` : `**did not run**: ${whyNot(report)}`;
    lines.push(`| ${cell(report.name)} | ${cell(result)} | ${(report.durationMs / 1000).toFixed(1)} s |`);
  }
  const notRun = reports.filter((report) => !report.ran);
  if (notRun.length > 0) {
    lines.push('', '### Did not run', '');
    for (const report of notRun) lines.push(`- **${inline(report.name)}**: ${inline(whyNot(report))}`);
  }
  lines.push('');

  if (findings.length === 0) {
    lines.push('No findings.', '');
    return lines.join('\n');
  }
  lines.push('## Findings', '', '| # | Severity | Finding | Where | Found by |', '| --- | --- | --- | --- | --- |');
  findings.forEach((finding, i) => lines.push(`| ${i + 1} | ${finding.severity} | ${cell(finding.title)} | ${cell(where(finding))} | ${cell(foundBy(finding))} |`));
  lines.push('', '## Details', '');
  findings.forEach((finding, i) => {
    lines.push(`### ${i + 1}. ${inline(finding.title)}`, '', `${finding.severity}, ${inline(where(finding))}, ${inline(foundBy(finding))}`, '', inline(finding.detail));
    if (finding.suggestion) lines.push('', `**Suggestion:** ${inline(finding.suggestion)}`);
    lines.push('');
  });
  return lines.join('\n');
}

function where(finding: ScanFinding): string {
  const lines = finding.endLine && finding.endLine > finding.line ? `${finding.line}-${finding.endLine}` : `${finding.line}`;
  const place = `${finding.repo ? `${finding.repo}/` : ''}${finding.path}:${lines}`;
  return finding.commit ? `${place} (commit ${finding.commit})` : place;
}

function foundBy(finding: ScanFinding): string {
  if (finding.tool !== ScanTool.Model) return `${finding.tool} (${finding.ruleId})`;
  return finding.challenge ? `model, ${finding.challenge}` : 'model';
}

/** Text in a paragraph: masked, on one line, without markup it could inject (HTML, headings). */
const inline = (text: string) => maskSecrets(text).replace(/\s*\n\s*/g, ' ').replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
/** Text in a table cell: inline, and its pipes escaped. */
const cell = (text: string) => inline(text).replace(/\|/g, '\\|');
