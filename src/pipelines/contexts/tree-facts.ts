import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import { shellQuote } from '../../common/shell-quote.js';
import { B64_FUNCTION, PROBE_DONE, fromBase64, runProbe } from './sandbox-probe.js';

/** Files whose text a template is derived from (the first README found is used). */
export const READ_FILES = ['package.json', 'README.md', 'README', 'README.markdown', 'README.rst', 'README.txt', 'readme.md', 'Readme.md'] as const;
const MAX_READ_BYTES = 64 * 1024;
/** Top-level names listed at most (a repository root with more is unusual; the rest do not matter). */
const MAX_ENTRIES = 2000;

/** What a context template is derived from: the top level of a tree and a few of its files. */
export interface TreeFacts {
  /** Top-level files. */
  files: string[];
  /** Top-level directories. */
  directories: string[];
  /** Text of READ_FILES present at the top level (cut at 64 KiB). */
  texts: Record<string, string>;
}

function factsScript(): string {
  return [
    B64_FUNCTION,
    'n=0',
    'for e in * .[!.]* ..?*; do',
    '  [ -e "$e" ] || [ -L "$e" ] || continue',
    `  n=$((n + 1)); [ "$n" -gt ${MAX_ENTRIES} ] && break`,
    '  if [ -d "$e" ] && [ ! -L "$e" ]; then k=d; else k=f; fi',
    '  printf \'@@entry %s %s\\n\' "$k" "$(printf \'%s\' "$e" | b64)"',
    'done',
    `for f in ${READ_FILES.map(shellQuote).join(' ')}; do`,
    `  if [ -f "$f" ] && [ ! -L "$f" ]; then echo "@@file $f"; head -c ${MAX_READ_BYTES} "$f" | base64; echo '@@end'; fi`,
    'done',
    `echo '${PROBE_DONE}'`,
  ].join('\n');
}

/** The tree's top level and the files a template is derived from, through one `Sandbox.exec`. */
export async function readTreeFacts(sandbox: Sandbox, repo: string): Promise<TreeFacts> {
  const lines = await runProbe(sandbox, factsScript(), `reading the top level of repository ${repo}`);
  const facts: TreeFacts = { files: [], directories: [], texts: {} };
  let reading: { name: string; chunks: string[] } | null = null;
  for (const line of lines) {
    if (reading) {
      if (line === '@@end') {
        facts.texts[reading.name] = fromBase64(reading.chunks);
        reading = null;
      } else reading.chunks.push(line);
      continue;
    }
    const [tag, first, second] = line.split(' ');
    if (tag === '@@entry' && second !== undefined) (first === 'd' ? facts.directories : facts.files).push(fromBase64(second));
    else if (tag === '@@file' && first !== undefined) reading = { name: first, chunks: [] };
    else throw new Error(`unexpected line in the top-level listing: ${line.slice(0, 80)}`);
  }
  facts.files.sort();
  facts.directories.sort();
  return facts;
}
