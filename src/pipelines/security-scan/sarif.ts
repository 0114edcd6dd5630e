import { createHash } from 'node:crypto';
import { FindingSeverity } from '../../agent/agent-types.js';
import { severityRank } from './finding-severity-scale.js';
import { Challenge, type ScanFinding, type ScannerReport, ScanTool } from './scan-finding.js';
import { whyNot } from './scanner-notes.js';
import { GENERIC_SECRET_RULE, maskSecrets } from './scanners/secret-matcher.js';

/** The parts of SARIF 2.1.0 this report writes (the schema allows much more). */
export type SarifLevel = 'error' | 'warning' | 'note';
export interface SarifLog {
  $schema: string;
  version: '2.1.0';
  runs: SarifRun[];
}
export interface SarifRun {
  tool: { driver: { name: string; version: string; informationUri?: string; rules: SarifRule[] } };
  originalUriBaseIds?: Record<string, { uri: string }>;
  invocations: SarifInvocation[];
  results: SarifResult[];
}
export interface SarifRule {
  id: string;
  shortDescription: { text: string };
  helpUri?: string;
  defaultConfiguration: { level: SarifLevel };
  properties: { severity: FindingSeverity; 'security-severity': string; tags: string[] };
}
export interface SarifInvocation {
  executionSuccessful: boolean;
  toolExecutionNotifications: { level: SarifLevel; message: { text: string }; descriptor: { id: string } }[];
  properties: { scanners: { name: string; tool: string; ran: boolean; findings: number; durationMs: number }[] };
}
export interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number; endLine?: number } } }[];
  partialFingerprints: Record<string, string>;
  /** A model finding the refutation round refuted: kept for the record, suppressed. */
  suppressions?: { kind: 'external'; justification: string }[];
  properties: { severity: FindingSeverity; tool: string; commit?: string; challenge?: string; suggestion?: string };
}

export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
export const SARIF_TOOL_NAME = 'pipeline-service security-scan';
/** The base the locations are relative to, when the caller names it (`repoUriBase`). */
const ROOT_BASE_ID = 'REPOROOT';

/** critical/high stop a merge, medium is worth a look, low/info are notes. */
const LEVEL: Readonly<Record<FindingSeverity, SarifLevel>> = {
  [FindingSeverity.Critical]: 'error',
  [FindingSeverity.High]: 'error',
  [FindingSeverity.Medium]: 'warning',
  [FindingSeverity.Low]: 'note',
  [FindingSeverity.Info]: 'note',
};
/** CVSS-like numbers code hosts sort and colour by (`properties.security-severity` on a rule). */
const SECURITY_SEVERITY: Readonly<Record<FindingSeverity, string>> = {
  [FindingSeverity.Critical]: '9.5',
  [FindingSeverity.High]: '8.0',
  [FindingSeverity.Medium]: '5.5',
  [FindingSeverity.Low]: '3.0',
  [FindingSeverity.Info]: '0.0',
};

export interface SarifOptions {
  toolVersion: string;
  /** Absolute URI of the repository root (ends with `/`): locations are relative to it. */
  repoUriBase?: string;
}

/**
 * One SARIF 2.1.0 run of every scanner's findings: a rule per ruleId (its severity the worst of
 * its results), a result per finding located by `repo/path` (the repository's name first in a
 * multi-repository project) and lines, and an invocation whose notifications name the scanners
 * that did not run (or ran partly) and why. Free text is masked: no secret value gets through.
 */
export function toSarif(reports: readonly ScannerReport[], options: SarifOptions): SarifLog {
  const findings = reports.flatMap((report) => report.findings);
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();
  for (const finding of findings) {
    const at = ruleIndex.get(finding.ruleId);
    if (at === undefined) {
      ruleIndex.set(finding.ruleId, rules.length);
      rules.push(ruleOf(finding));
    } else if (severityRank(finding.severity) < severityRank(rules[at]!.properties.severity)) {
      rules[at] = { ...ruleOf(finding), shortDescription: rules[at]!.shortDescription };
    }
  }
  const run: SarifRun = {
    tool: { driver: { name: SARIF_TOOL_NAME, version: options.toolVersion, rules } },
    invocations: [invocationOf(reports)],
    results: findings.map((finding) => resultOf(finding, ruleIndex.get(finding.ruleId)!, options.repoUriBase !== undefined)),
  };
  if (options.repoUriBase !== undefined) run.originalUriBaseIds = { [ROOT_BASE_ID]: { uri: options.repoUriBase.endsWith('/') ? options.repoUriBase : `${options.repoUriBase}/` } };
  return { $schema: SARIF_SCHEMA_URI, version: '2.1.0', runs: [run] };
}

function ruleOf(finding: ScanFinding): SarifRule {
  const ghsa = /^npm-audit\/(GHSA-[\w-]+)$/.exec(finding.ruleId)?.[1];
  return {
    id: finding.ruleId,
    shortDescription: { text: describeRule(finding) },
    ...(ghsa ? { helpUri: `https://github.com/advisories/${ghsa}` } : {}),
    defaultConfiguration: { level: LEVEL[finding.severity] },
    properties: { severity: finding.severity, 'security-severity': SECURITY_SEVERITY[finding.severity], tags: ['security', finding.tool] },
  };
}

function describeRule(finding: ScanFinding): string {
  if (finding.tool === ScanTool.Secrets) return finding.ruleId === GENERIC_SECRET_RULE ? 'High-entropy value assigned to a secret-looking name' : `Committed secret: ${finding.ruleId}`;
  if (finding.tool === ScanTool.Dependencies) return `Vulnerable dependency: ${finding.ruleId.replace(/^npm-audit\//, '')}`;
  return maskSecrets(finding.title);
}

function resultOf(finding: ScanFinding, index: number, based: boolean): SarifResult {
  const startLine = Math.max(1, Math.trunc(finding.line) || 1);
  const endLine = finding.endLine !== null && finding.endLine >= startLine ? Math.trunc(finding.endLine) : undefined;
  const uri = [finding.repo, ...finding.path.split('/')].filter((part): part is string => !!part).map(encodeURIComponent).join('/');
  const properties: SarifResult['properties'] = { severity: finding.severity, tool: finding.tool };
  if (finding.commit) properties.commit = finding.commit;
  if (finding.challenge) properties.challenge = finding.challenge;
  if (finding.suggestion) properties.suggestion = maskSecrets(finding.suggestion);
  return {
    ruleId: finding.ruleId,
    ruleIndex: index,
    level: LEVEL[finding.severity],
    message: { text: maskSecrets(`${finding.title}\n\n${finding.detail}${finding.suggestion ? `\n\nSuggestion: ${finding.suggestion}` : ''}`) },
    locations: [{ physicalLocation: { artifactLocation: { uri, ...(based ? { uriBaseId: ROOT_BASE_ID } : {}) }, region: { startLine, ...(endLine ? { endLine } : {}) } } }],
    // Stable across runs while the finding stands: line numbers left out, so an edit above it keeps it.
    partialFingerprints: { 'pipelineServiceFinding/v1': fingerprintOf(finding) },
    ...(finding.challenge === Challenge.Refuted ? { suppressions: [{ kind: 'external' as const, justification: 'refuted by a second, independent model review' }] } : {}),
    properties,
  };
}

const fingerprintOf = (finding: ScanFinding) =>
  createHash('sha256').update([finding.tool, finding.ruleId, finding.repo ?? '', finding.path, finding.commit ?? '', finding.title].join('\u0000')).digest('hex');

function invocationOf(reports: readonly ScannerReport[]): SarifInvocation {
  return {
    executionSuccessful: reports.every((report) => report.ran),
    toolExecutionNotifications: reports
      .filter((report) => !report.ran || report.note)
      .map((report) => ({
        level: report.ran ? 'note' : 'warning',
        message: { text: `${report.name}${report.ran ? '' : ' did not run'}: ${maskSecrets(report.ran ? (report.note ?? '') : whyNot(report))}` },
        descriptor: { id: report.name.replace(/[^A-Za-z0-9]+/g, '-') },
      })),
    properties: { scanners: reports.map((report) => ({ name: report.name, tool: report.tool, ran: report.ran, findings: report.findings.length, durationMs: report.durationMs })) },
  };
}
