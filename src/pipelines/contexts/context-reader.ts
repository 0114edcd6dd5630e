import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import { CONTEXTS_DIR, CONTEXT_FILES, ContextFile } from './context-files.js';
import { shellQuote } from '../../common/shell-quote.js';
import { B64_FUNCTION, PROBE_DONE, fromBase64, runProbe } from './sandbox-probe.js';

/** Most bytes of a context file read (principles are prompt text: a bigger file is cut and noted). */
export const MAX_CONTEXT_FILE_BYTES = 64 * 1024;
/** Most context folders read; more is reported (a repository does not need hundreds). */
export const MAX_CONTEXTS = 100;

/** One file of a context folder as found in the tree. */
export type ContextFileRead =
  | { state: 'missing' }
  | { state: 'file'; text: string; size: number; truncated: boolean }
  /** A directory, a symbolic link or a special file where the file should be: present, but not read. */
  | { state: 'other' };

export interface ContextFolderRead {
  name: string;
  /** The folder itself is a symbolic link (its files are not read). */
  link: boolean;
  files: Record<ContextFile, ContextFileRead>;
}

/** What `.service/contexts` is in the tree. */
export type ContextsRootState = 'absent' | 'directory' | 'not-a-directory' | 'link';

/** The contexts folder of one tree, as read from its sandbox. */
export interface ContextScan {
  repo: string | null;
  root: ContextsRootState;
  folders: ContextFolderRead[];
  /** More than MAX_CONTEXTS folders: the rest were not read. */
  cut: boolean;
}

/**
 * One exec that prints everything: the state of the contexts folder, each context folder's name
 * (base64) and for each of its two files whether it is there, its size and its first bytes
 * (base64, whose alphabet has no `@`, so a frame line is never content).
 */
function scanScript(): string {
  const files = CONTEXT_FILES.map(shellQuote).join(' ');
  return [
    B64_FUNCTION,
    `root=${shellQuote(CONTEXTS_DIR)}`,
    `cap=${MAX_CONTEXT_FILE_BYTES}`,
    `if [ -L .service ] || [ -L "$root" ]; then echo '@@root link'; echo '${PROBE_DONE}'; exit 0; fi`,
    `if [ ! -e "$root" ]; then echo '@@root absent'; echo '${PROBE_DONE}'; exit 0; fi`,
    `if [ ! -d "$root" ]; then echo '@@root not-a-directory'; echo '${PROBE_DONE}'; exit 0; fi`,
    `echo '@@root directory'`,
    'count=0',
    'for dir in "$root"/*; do',
    '  [ -d "$dir" ] || continue',
    `  count=$((count + 1)); if [ "$count" -gt ${MAX_CONTEXTS} ]; then echo '@@cut'; break; fi`,
    '  name=${dir#"$root"/}',
    '  printf \'@@context %s\\n\' "$(printf \'%s\' "$name" | b64)"',
    "  if [ -L \"$dir\" ]; then echo '@@link'; continue; fi",
    `  for f in ${files}; do`,
    '    p="$dir/$f"',
    '    if [ -L "$p" ]; then echo "@@file $f other"',
    '    elif [ -f "$p" ]; then echo "@@file $f $(wc -c < "$p" | tr -d \' \')"; head -c "$cap" "$p" | base64; echo \'@@end\'',
    '    elif [ -e "$p" ]; then echo "@@file $f other"',
    '    else echo "@@file $f missing"; fi',
    '  done',
    'done',
    `echo '${PROBE_DONE}'`,
  ].join('\n');
}

/**
 * Reads the contexts of the tree in the sandbox (`.service/contexts/<name>/`): which folders,
 * whether each has `context.yaml` and `principles.md`, and their text (cut at
 * MAX_CONTEXT_FILE_BYTES). Only through `Sandbox.exec`. Throws when the sandbox cannot run it.
 */
export async function scanContexts(sandbox: Sandbox, repo: string | null): Promise<ContextScan> {
  const lines = await runProbe(sandbox, scanScript(), `reading the contexts of ${repo === null ? 'the tree' : `repository ${repo}`}`);
  return parseScan(repo, lines);
}

/** The scan script's output as a ContextScan (exported for tests of odd output). */
export function parseScan(repo: string | null, lines: readonly string[]): ContextScan {
  const scan: ContextScan = { repo, root: 'absent', folders: [], cut: false };
  let folder: ContextFolderRead | null = null;
  let reading: { file: ContextFile; size: number; chunks: string[] } | null = null;
  for (const line of lines) {
    if (reading) {
      if (line !== '@@end') {
        reading.chunks.push(line);
        continue;
      }
      const bytes = Buffer.from(reading.chunks.join(''), 'base64');
      folder!.files[reading.file] = { state: 'file', text: bytes.toString('utf8'), size: reading.size, truncated: reading.size > bytes.length };
      reading = null;
      continue;
    }
    const [tag, first, second] = line.split(' ');
    switch (tag) {
      case '@@root':
        scan.root = first as ContextsRootState;
        break;
      case '@@cut':
        scan.cut = true;
        break;
      case '@@context':
        folder = { name: fromBase64(first ?? ''), link: false, files: { [ContextFile.ContextYaml]: { state: 'missing' }, [ContextFile.Principles]: { state: 'missing' } } };
        scan.folders.push(folder);
        break;
      case '@@link':
        if (folder) folder.link = true;
        break;
      case '@@file': {
        if (!folder || !CONTEXT_FILES.includes(first as ContextFile)) throw new Error(`unexpected line in the contexts scan: ${line.slice(0, 80)}`);
        const file = first as ContextFile;
        if (second === 'missing') folder.files[file] = { state: 'missing' };
        else if (second === 'other') folder.files[file] = { state: 'other' };
        else reading = { file, size: Number(second), chunks: [] };
        break;
      }
      default:
        throw new Error(`unexpected line in the contexts scan: ${line.slice(0, 80)}`);
    }
  }
  if (reading) throw new Error('the contexts scan ended inside a file');
  scan.folders.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scan;
}
