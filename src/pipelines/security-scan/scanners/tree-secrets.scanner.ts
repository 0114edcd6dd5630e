import { performance } from 'node:perf_hooks';
import { clipText } from '../../../common/clip-text.js';
import type { CommittedTree } from '../../pipeline.js';
import { type ScanFinding, type ScannerReport, ScanTool } from '../scan-finding.js';
import { readGitRecords } from './git-lines.js';
import { treeSecretFinding } from './secret-findings.js';
import { findSecrets, LINE_WINDOW_CHARS, SECRET_LINE_HINTS } from './secret-matcher.js';
import { MAX_FINDINGS, MAX_SCANNED_FILE_BYTES, type SecretScanOptions, skippedNote } from './scan-limits.js';

/** Big files excluded by pathspec; beyond that many their hits are dropped after the grep. */
const MAX_EXCLUDED_PATHSPECS = 1000;

/** The tree's report, and the fingerprints of the secrets it found: history leaves those out. */
export interface TreeSecretsResult {
  report: ScannerReport;
  fingerprints: ReadonlySet<string>;
}

/**
 * Secrets in the tree of the committed commit: `git grep -I` picks candidate lines (text files
 * only) with the rules' hints, then every rule inspects each candidate. Files over 1 MiB are
 * skipped; lines over 4 KiB are inspected in windows. Rejects with the signal's reason on abort.
 */
export async function scanTreeForSecrets(tree: CommittedTree, options: SecretScanOptions = {}): Promise<TreeSecretsResult> {
  const started = performance.now();
  const report = (ran: boolean, note: string | null, findings: ScanFinding[]): ScannerReport => ({
    tool: ScanTool.Secrets,
    name: 'secrets in the tree',
    ran,
    note,
    findings,
    durationMs: Math.round(performance.now() - started),
  });

  const large: string[] = [];
  const listed = await readGitRecords(
    tree.git(['ls-tree', '-r', '-l', '-z', '--full-tree', tree.commit]),
    (record) => {
      // `<mode> blob <sha> <size padded>\t<path>`
      const tab = record.indexOf('\t');
      const [, type, , size] = record.slice(0, tab).trim().split(/\s+/);
      if (type === 'blob' && Number(size) > MAX_SCANNED_FILE_BYTES) large.push(record.slice(tab + 1));
      return 'more';
    },
    { signal: options.signal, separator: '\u0000' },
  );
  if (!listed.ok) return { report: report(false, `git ls-tree failed: ${clipText(listed.error, 300)}`, []), fingerprints: new Set() };

  const skip = new Set(large);
  const excluded = large.slice(0, MAX_EXCLUDED_PATHSPECS).map((path) => `:(exclude,literal)${path}`);
  // One alternation, not one -e per hint: git's matcher runs one pass per pattern.
  const hint = SECRET_LINE_HINTS.join('|');
  const findings: ScanFinding[] = [];
  const fingerprints = new Set<string>();
  const prefix = `${tree.commit}:`;
  let longLines = 0;
  let capped = false;
  const onRecord = (record: string): 'more' => {
    // `<commit>:<path>\0<line>\0<text>`
    const first = record.indexOf('\u0000');
    const second = record.indexOf('\u0000', first + 1);
    if (first < 0 || second < 0) return 'more';
    const named = record.slice(0, first);
    const path = named.startsWith(prefix) ? named.slice(prefix.length) : named;
    if (skip.has(path)) return 'more';
    const line = Number(record.slice(first + 1, second));
    const text = record.slice(second + 1);
    if (text.length > LINE_WINDOW_CHARS) longLines++;
    for (const match of findSecrets(text, path)) {
      fingerprints.add(match.fingerprint);
      if (findings.length >= MAX_FINDINGS) {
        capped = true;
        continue;
      }
      findings.push(treeSecretFinding(match, { repo: options.repo ?? null, path, line }));
    }
    return 'more';
  };
  const grep = (engine: '-P' | '-E') =>
    readGitRecords(tree.git(['grep', '-I', '-n', '-z', '-i', engine, '--no-color', '--full-name', '-e', hint, tree.commit, '--', ...excluded]), onRecord, {
      signal: options.signal,
      separator: '\n',
      noMatchIsEmpty: true,
    });
  // PCRE (with its JIT) is about twice as fast on the alternation; a git built without it says so at once.
  let grepped = await grep('-P');
  if (!grepped.ok && /perl|pcre/i.test(grepped.error) && findings.length === 0) grepped = await grep('-E');
  if (!grepped.ok) return { report: report(false, `git grep failed: ${clipText(grepped.error, 300)}`, []), fingerprints: new Set() };
  return { report: report(true, skippedNote(large, longLines, capped), findings), fingerprints };
}
