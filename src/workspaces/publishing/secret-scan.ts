import { scrubSecrets } from '../../tickets/label-projection/secret-scrubber.js';
import type { FileAdditions } from '../git/added-lines.js';

/** Where a secret was found: the file, the line (new side) and the rule. Never the value. */
export interface SecretFinding {
  path: string;
  line: number;
  rule: string;
}

/**
 * Well-known token shapes, named so a refusal can say which rule matched. Deliberately specific
 * (prefixes, fixed lengths, key markers): a push refused for a random hex string would teach
 * people to ignore the scan.
 */
const TOKEN_RULES: readonly { rule: string; pattern: RegExp }[] = [
  { rule: 'github-token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/ },
  { rule: 'github-fine-grained-token', pattern: /\bgithub_pat_[A-Za-z0-9_]{50,255}\b/ },
  { rule: 'gitlab-token', pattern: /\bgl(?:pat|ptt|dt|rt|soat|ffct|cbt|imt|oas|agent)-[A-Za-z0-9_-]{20,}/ },
  { rule: 'azure-devops-pat', pattern: /\b[A-Za-z0-9]{52}JQQJ9[59][A-Za-z0-9]{3}AZDO[A-Za-z0-9]{4}\b/ },
  { rule: 'azure-storage-key', pattern: /\b(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,}={0,2}/ },
  { rule: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/ },
  { rule: 'aws-secret-access-key', pattern: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b/i },
  { rule: 'private-key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
];

/** Longest line looked at: a minified bundle line is scanned in its first part only, never backtracked over. */
const MAX_LINE_CHARS = 64 * 1024;

/**
 * Scans what a change adds for secrets: every value the service is configured with (in every
 * encoding the scrubber recognises: case, percent-encoding, base64 of it and of `user:` pairs,
 * wrapped) and the well-known token shapes. Returns every finding (one per file and rule).
 */
export function scanFileForSecrets(file: FileAdditions, configured: readonly string[]): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const rules = new Set<string>();
  const note = (rule: string, line: number) => {
    if (rules.has(rule)) return;
    rules.add(rule);
    findings.push({ path: file.path, line, rule });
  };
  // The file's added text as one piece too: a value wrapped over lines is still found.
  const whole = file.lines.map((l) => l.text).join('\n');
  if (configured.length > 0 && scrubSecrets(whole, configured) !== whole) {
    const hit = file.lines.find((l) => scrubSecrets(l.text, configured) !== l.text) ?? file.lines[0];
    note('configured-secret', hit?.number ?? 1);
  }
  for (const { number, text: full } of file.lines) {
    const text = full.length > MAX_LINE_CHARS ? full.slice(0, MAX_LINE_CHARS) : full;
    for (const { rule, pattern } of TOKEN_RULES) if (pattern.test(text)) note(rule, number);
  }
  return findings;
}

/** Every file of a change, one at a time (the change's added lines are streamed, not held). */
export async function scanForSecrets(files: AsyncIterable<FileAdditions> | Iterable<FileAdditions>, configured: readonly string[]): Promise<SecretFinding[]> {
  const findings: SecretFinding[] = [];
  for await (const file of files) findings.push(...scanFileForSecrets(file, configured));
  return findings;
}

/** `web/.env line 3 (rule github-token)` … for a refusal; paths only, values never. */
export function describeFindings(findings: readonly SecretFinding[], max = 5): string {
  const shown = findings.slice(0, max).map((f) => `${f.path} line ${f.line} (rule ${f.rule})`);
  return findings.length > max ? `${shown.join(', ')} and ${findings.length - max} more` : shown.join(', ');
}
