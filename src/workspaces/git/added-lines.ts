import type { Readable } from 'node:stream';

/** One line a change adds, with its number in the new version of the file. */
export interface AddedLine {
  number: number;
  text: string;
}

/** The lines a change adds to one file. */
export interface FileAdditions {
  path: string;
  lines: AddedLine[];
}

/**
 * Reads `git diff --text -U0 --no-renames --src-prefix=a/ --dst-prefix=b/` output and yields,
 * file by file, the lines it adds (one file in memory at a time). Deleted files add nothing.
 */
export async function* addedLinesOf(diff: Readable): AsyncGenerator<FileAdditions> {
  let current: FileAdditions | null = null;
  let next = 0;
  let inHeader = false;
  for await (const line of linesOf(diff)) {
    if (line.startsWith('diff --git ')) {
      if (current?.lines.length) yield current;
      current = null;
      inHeader = true;
      continue;
    }
    if (inHeader) {
      if (line.startsWith('+++ ')) {
        // Git ends the name with a tab when it contains a space (for patch(1)); a real tab would be quoted.
        const path = line.slice(4).replace(/\t$/, '');
        current = path === '/dev/null' ? null : { path: stripPrefix(unquote(path)), lines: [] };
        inHeader = false;
      }
      continue;
    }
    if (line.startsWith('@@')) {
      const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      next = hunk ? Number(hunk[1]) : 0;
      continue;
    }
    if (current && line.startsWith('+')) current.lines.push({ number: next++, text: line.slice(1) });
  }
  if (current?.lines.length) yield current;
}

/** Lines split at `\n` only (readline would also split at a lone `\r`, which is content in a diff). */
async function* linesOf(stream: Readable): AsyncGenerator<string> {
  // The pieces of the line under way, joined once it ends: appending chunk by chunk would copy a
  // long line (a minified bundle) over and over.
  let pending: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end);
      yield pending.length ? Buffer.concat([...pending, piece]).toString('utf8') : piece.toString('utf8');
      pending = [];
      start = end + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length) yield Buffer.concat(pending).toString('utf8');
}

function stripPrefix(path: string): string {
  return path.startsWith('b/') ? path.slice(2) : path;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** Git's C-style quoting of unusual paths (`"b/caf\303\251 \"x\".txt"`) undone, bytes read as UTF-8. */
export function unquote(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const escaped = body[i + 1] ?? '';
    if (/[0-7]/.test(escaped)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[escaped] ?? escaped.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
