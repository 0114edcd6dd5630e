/**
 * A line diff of two texts (Myers' O((N+M)D) algorithm), for hosts that list a pull request's
 * changed files without saying which lines changed (Azure DevOps): the new side's added or
 * modified lines, and the change as unified-diff hunks.
 *
 * The work is capped: common leading and trailing lines are trimmed first (cheap, and most edits
 * are local), then the search gives up past `maxEdits` edits or `maxLines` lines. Beyond the cap
 * the whole differing middle counts as changed (`approximate`): every line of it is a line the
 * change touched or sits between two that it did, and a review may anchor there.
 */
export interface LineDiff {
  /** 1-based new-side lines added or modified, ascending. */
  changed: number[];
  /** Unified-diff hunks (`@@ -a,b +c,d @@` …), '' when the texts are equal. */
  hunks: string;
  approximate: boolean;
}

export interface LineDiffOptions {
  /** Most edits (inserted plus deleted lines) searched for. Default 1000. */
  maxEdits?: number;
  /** Most lines (both sides, after trimming) searched. Default 50 000. */
  maxLines?: number;
  /** Context lines around each hunk. Default 3. */
  context?: number;
}

type Op = 'equal' | 'delete' | 'insert';

export function diffLines(oldText: string, newText: string, options: LineDiffOptions = {}): LineDiff {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);
  const tooLong = middleA.length + middleB.length > (options.maxLines ?? 50_000);
  const searched = tooLong ? null : myers(middleA, middleB, options.maxEdits ?? 1000);
  const middle = searched ?? [...middleA.map((): Op => 'delete'), ...middleB.map((): Op => 'insert')];
  const ops: Op[] = [...Array<Op>(prefix).fill('equal'), ...middle, ...Array<Op>(suffix).fill('equal')];
  return { changed: insertedLines(ops), hunks: formatHunks(ops, a, b, options.context ?? 3), approximate: searched === null };
}

/** Lines of a text; a final newline ends the last line rather than starting an empty one. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The shortest edit script from `a` to `b`, or null when it needs more than `maxEdits` edits. */
function myers(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const offset = max;
  const v = new Int32Array(2 * max + 2);
  // trace[d] holds V for diagonals -d…d after round d: enough to walk back, O(D²) memory.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, maxEdits); d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return walkBack(trace, n, m);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return null;
}

function walkBack(trace: readonly Int32Array[], n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const previous = trace[d - 1]!;
    const at = (k: number): number => previous[k + d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const startX = down ? prevX : prevX + 1;
    while (x > startX) {
      ops.push('equal');
      x--;
      y--;
    }
    ops.push(down ? 'insert' : 'delete');
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push('equal');
    x--;
    y--;
  }
  return ops.reverse();
}

function insertedLines(ops: readonly Op[]): number[] {
  const lines: number[] = [];
  let line = 0;
  for (const op of ops) {
    if (op === 'delete') continue;
    line++;
    if (op === 'insert') lines.push(line);
  }
  return lines;
}

/** GNU-style hunks: changes closer than 2 × `context` lines share one hunk. */
function formatHunks(ops: readonly Op[], a: readonly string[], b: readonly string[], context: number): string {
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    oldAt.push(i);
    newAt.push(j);
    if (op !== 'insert') i++;
    if (op !== 'delete') j++;
  }
  const changes = ops.flatMap((op, index) => (op === 'equal' ? [] : [index]));
  const out: string[] = [];
  let c = 0;
  while (c < changes.length) {
    let last = c;
    while (last + 1 < changes.length && changes[last + 1]! - changes[last]! <= 2 * context + 1) last++;
    const start = Math.max(0, changes[c]! - context);
    const end = Math.min(ops.length, changes[last]! + context + 1);
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    for (let index = start; index < end; index++) {
      const op = ops[index]!;
      if (op === 'equal') body.push(` ${a[oldAt[index]!]}`);
      else if (op === 'delete') body.push(`-${a[oldAt[index]!]}`);
      else body.push(`+${b[newAt[index]!]}`);
      if (op !== 'insert') oldCount++;
      if (op !== 'delete') newCount++;
    }
    const oldStart = oldCount === 0 ? oldAt[start]! : oldAt[start]! + 1;
    const newStart = newCount === 0 ? newAt[start]! : newAt[start]! + 1;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...body);
    c = last + 1;
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
