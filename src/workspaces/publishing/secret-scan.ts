import { TOKEN_RULES } from '../../common/secret-rules.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import type { FileAdditions } from '../git/added-lines.js';

/** Where a secret was found: the file, the line (new side) and the rule. Never the value. */
export interface SecretFinding {
  path: string;
  line: number;
  rule: string;
}

/** Long lines (a minified bundle) are scanned in windows this long, overlapping by WINDOW_OVERLAP. */
const WINDOW_CHARS = 64 * 1024;
const WINDOW_OVERLAP = 1024;
/**
 * Most added text scanned per file (the scrubber's views take about 9 bytes per character): a
 * bigger file is refused as too large to scan rather than pushed unread or read at any cost.
 */
export const MAX_SCANNED_CHARS_PER_FILE = 16 * 1024 * 1024;

/** The pieces of a line the rules look at: windows of a long line, and its text without NULs (UTF-16). */
function viewsOf(text: string): string[] {
  const views: string[] = [];
  for (const base of text.includes('\u0000') ? [text, text.replace(/\u0000/g, '')] : [text]) {
    if (base.length <= WINDOW_CHARS) views.push(base);
    else for (let at = 0; at < base.length; at += WINDOW_CHARS - WINDOW_OVERLAP) views.push(base.slice(at, at + WINDOW_CHARS));
  }
  return views;
}

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
  const size = file.lines.reduce((sum, l) => sum + l.text.length + 1, 0);
  if (size > MAX_SCANNED_CHARS_PER_FILE) {
    note('too-large-to-scan', file.lines[0]?.number ?? 1);
    return findings;
  }
  // The file's added text as one piece too: a value wrapped over lines is still found.
  const whole = file.lines.map((l) => l.text).join('\n');
  const scrubbed = (text: string) => scrubSecrets(text, configured) !== text;
  if (configured.length > 0 && (scrubbed(whole) || (whole.includes('\u0000') && scrubbed(whole.replace(/\u0000/g, ''))))) {
    const hit = file.lines.find((l) => viewsOf(l.text).some(scrubbed)) ?? file.lines[0];
    note('configured-secret', hit?.number ?? 1);
  }
  for (const { number, text } of file.lines) {
    for (const view of viewsOf(text)) for (const { rule, pattern } of TOKEN_RULES) if (pattern.test(view)) note(rule, number);
  }
  return findings;
}

/** Every file of a change, one at a time (the change's added lines are streamed, not held). */
export async function scanForSecrets(files: AsyncIterable<FileAdditions> | Iterable<FileAdditions>, configured: readonly string[]): Promise<SecretFinding[]> {
  const findings: SecretFinding[] = [];
  for await (const file of files) {
    // A path that matches is reported (withheld) by scanPathsForSecrets; here it must not be shown.
    const named = scanPathsForSecrets([file.path], configured).length > 0;
    for (const finding of scanFileForSecrets(file, configured)) findings.push(named ? { ...finding, path: WITHHELD_PATH } : finding);
  }
  return findings;
}

/** Stands for a path that itself matches a rule: the refusal must not repeat the value. */
export const WITHHELD_PATH = '(a file whose name matches)';

/** The changed files' own names, scanned like content: a token can be committed as a file name too. */
export function scanPathsForSecrets(paths: readonly string[], configured: readonly string[]): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const path of paths) {
    const found = scanFileForSecrets({ path, lines: [{ number: 0, text: path }] }, configured);
    for (const finding of found) findings.push({ ...finding, path: WITHHELD_PATH });
  }
  return findings;
}

/** `web/.env line 3 (rule github-token)` … for a refusal; paths only, values never. */
export function describeFindings(findings: readonly SecretFinding[], max = 5): string {
  const shown = findings.slice(0, max).map((f) => (f.path === WITHHELD_PATH ? `${f.path} (rule ${f.rule})` : `${f.path} line ${f.line} (rule ${f.rule})`));
  return findings.length > max ? `${shown.join(', ')} and ${findings.length - max} more` : shown.join(', ');
}
