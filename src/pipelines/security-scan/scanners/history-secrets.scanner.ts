import { performance } from 'node:perf_hooks';
import { clipText } from '../../../common/clip-text.js';
import type { CommittedTree } from '../../pipeline.js';
import { type ScanFinding, type ScannerReport, ScanTool } from '../scan-finding.js';
import { readGitRecords } from './git-lines.js';
import { historySecretFinding } from './secret-findings.js';
import { findSecrets, LINE_WINDOW_CHARS, SECRET_LINE_HINT } from './secret-matcher.js';
import { MAX_FINDINGS, MAX_SCANNED_FILE_BYTES, type SecretScanOptions, skippedNote } from './scan-limits.js';

/** How far back history is read: the "last 500 commits". */
export const HISTORY_COMMITS = 500;

/** Starts each commit's header line in the log: a diff line never starts with a control character. */
const COMMIT_MARK = '\u0001';

export interface HistoryScanOptions extends SecretScanOptions {
  /** Fingerprints of the secrets still in the tree (`scanTreeForSecrets`): those are tree findings. */
  inTree?: ReadonlySet<string>;
  /** Commits read, newest first (default 500; merges are left out, their changes are in their parents). */
  maxCommits?: number;
}

/**
 * Secrets that the last 500 commits added and the tree no longer has: `git log -p -U0` streams
 * the added lines, every rule inspects them. A secret added several times is reported once, at
 * the oldest commit that added it. Binary changes have no lines; a file's change over 1 MiB is
 * read up to that point. Rejects with the signal's reason on abort.
 */
export async function scanHistoryForSecrets(tree: CommittedTree, options: HistoryScanOptions = {}): Promise<ScannerReport> {
  const started = performance.now();
  const maxCommits = options.maxCommits ?? HISTORY_COMMITS;
  const inTree = options.inTree ?? new Set<string>();
  const found = new Map<string, ScanFinding>();
  const large = new Set<string>();
  let commit = '';
  let path: string | null = null;
  let line = 0;
  let bytes = 0;
  let inHeader = false;
  let longLines = 0;
  let capped = false;

  const onRecord = (record: string): 'more' => {
    if (record.startsWith(COMMIT_MARK)) {
      commit = record.slice(1).trim();
      path = null;
      inHeader = false;
    } else if (record.startsWith('diff --git ')) {
      path = null;
      inHeader = true;
      bytes = 0;
    } else if (inHeader && record.startsWith('+++ ')) {
      path = record === '+++ /dev/null' ? null : unquotePath(record.slice(4)).replace(/^b\//, '');
    } else if (record.startsWith('@@')) {
      inHeader = false;
      line = Number(/\+(\d+)/.exec(record)?.[1] ?? 0);
    } else if (!inHeader && record.startsWith('+') && path !== null) {
      const text = record.slice(1);
      const at = line++;
      bytes += text.length + 1;
      if (bytes > MAX_SCANNED_FILE_BYTES) {
        large.add(path);
        return 'more';
      }
      if (!SECRET_LINE_HINT.test(text)) return 'more';
      if (text.length > LINE_WINDOW_CHARS) longLines++;
      for (const match of findSecrets(text, path)) {
        if (inTree.has(match.fingerprint)) continue;
        const key = `${match.rule}\u0000${match.fingerprint}`;
        // Newest first: a later sighting is an older commit, the one that really added it.
        if (!found.has(key) && found.size >= MAX_FINDINGS) {
          capped = true;
          continue;
        }
        found.set(key, historySecretFinding(match, { repo: options.repo ?? null, path, line: at }, commit));
      }
    }
    return 'more';
  };

  const read = await readGitRecords(
    tree.git([
      '-c', 'core.quotePath=false', 'log', '-p', '-U0', '--no-merges', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames',
      `-n${maxCommits}`, `--format=${COMMIT_MARK}%H`, tree.commit, '--',
    ]),
    onRecord,
    { signal: options.signal, separator: '\n' },
  );
  const durationMs = Math.round(performance.now() - started);
  if (!read.ok) return { tool: ScanTool.Secrets, name: 'secrets in history', ran: false, note: `git log failed: ${clipText(read.error, 300)}`, findings: [], durationMs };
  const note = skippedNote([...large], longLines, capped, 'change');
  return { tool: ScanTool.Secrets, name: 'secrets in history', ran: true, note, findings: [...found.values()], durationMs };
}

/** Git quotes a path with unusual bytes C-style (`"b/caf\303\251"`); this undoes it. */
function unquotePath(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"')) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
