import type { AgentFinding } from '../agent-types.js';
import { UNTRUSTED_DATA_NOTICE } from '../untrusted-text.js';
import { oneLine, untrustedSection } from './prompt-text.js';

export interface ScanPromptInput {
  /** The run's trees: `prefix` in a multi-repository run, and what each tree is (a branch, a pull request's head). */
  trees: readonly { prefix: string | null; from: string }[];
  /** What the deterministic scanners did, each finding as one line. */
  scanners: readonly { name: string; ran: boolean; note: string | null; findings: readonly string[] }[];
  contextsBrief: string;
  secrets: readonly string[];
}

/** Scanner lines kept in the prompt: the rest are in the report, and the model need not repeat them. */
const SCANNER_FINDINGS_SHOWN = 100;

/**
 * The first user message of a `security-scan` run: what is scanned, what the deterministic
 * scanners already found (so the model looks elsewhere and does not repeat them), then the
 * contexts. Scanner lines quote paths and titles from the repository: untrusted.
 */
export function buildScanPrompt(input: ScanPromptInput): string {
  const { secrets } = input;
  const out = ['# Task', ''];
  for (const tree of input.trees) out.push(`- ${tree.prefix === null ? 'The working tree' : `\`${oneLine(tree.prefix, secrets)}/…\``} is ${oneLine(tree.from, secrets, 200)}.`);
  out.push(
    '',
    'What to do:',
    '1. Examine the code for security vulnerabilities: injection, broken authentication or authorisation, unsafe deserialisation, path traversal, SSRF, secrets handling, weak cryptography, unsafe defaults, and the like. Follow data from its sources to its sinks.',
    '2. Report each real vulnerability with `report_finding`. Do not report again what the scanners below already found; a finding of yours that no scanner backs is checked once more by another reviewer who tries to refute it, so report only what you can show.',
    '3. Call `finish` with a one-paragraph summary of what you examined and the overall risk.',
    '',
    '## What the deterministic scanners found',
    '',
  );
  const lines: string[] = [];
  for (const scanner of input.scanners) {
    lines.push(`${scanner.name}: ${scanner.ran ? `${scanner.findings.length} finding(s)` : 'not run'}${scanner.note ? ` (${scanner.note})` : ''}`);
    for (const finding of scanner.findings.slice(0, SCANNER_FINDINGS_SHOWN)) lines.push(`  - ${finding}`);
    if (scanner.findings.length > SCANNER_FINDINGS_SHOWN) lines.push(`  - … ${scanner.findings.length - SCANNER_FINDINGS_SHOWN} more`);
  }
  out.push(UNTRUSTED_DATA_NOTICE, '', untrustedSection('scanner-findings', lines.join('\n'), secrets, 20_000).block, '', input.contextsBrief.trim());
  return out.join('\n');
}

/**
 * A fresh conversation's only message: one finding of the first review, to be refuted if it can
 * be. The finding is model output derived from untrusted code: delimited as such.
 */
export function buildChallengePrompt(finding: Pick<AgentFinding, 'path' | 'line' | 'endLine' | 'severity' | 'title' | 'detail'>, secrets: readonly string[]): string {
  const where = finding.endLine ? `${finding.path}:${finding.line}-${finding.endLine}` : `${finding.path}:${finding.line}`;
  const text = [`severity: ${finding.severity}`, `where: ${where}`, `title: ${finding.title}`, '', finding.detail].join('\n');
  return [
    '# Task',
    '',
    'Another reviewer reported the security finding below. Your job is to try to refute it: read the code it points at and whatever decides whether it is real (callers, input validation, configuration, framework defaults).',
    '',
    'Then call `finish` with a summary that starts with exactly one word:',
    '- `REFUTED` when the code shows the finding is wrong (not reachable, already prevented, or not a vulnerability), followed by the evidence;',
    '- `CONFIRMED` when you cannot refute it, followed by why it stands.',
    '',
    'Do not report new findings.',
    '',
    UNTRUSTED_DATA_NOTICE,
    '',
    untrustedSection('finding-to-refute', text, secrets, 8_000).block,
  ].join('\n');
}
