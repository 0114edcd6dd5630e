/**
 * The new side of a unified diff's hunks (GitHub's `patch` of a pull request file, GitLab's
 * `diff` of a merge request file): which lines the change adds or modifies, and which lines the
 * hunks show at all. Only hunk bodies are read; file headers (`diff --git`, `---`, `+++`) before
 * the first `@@` are skipped, and text that is not a diff yields nothing rather than an error.
 */
export interface UnifiedDiffLines {
  /** New-side lines added or modified (`+` lines), ascending. */
  changed: number[];
  /** New-side lines the hunks show, context included, ascending. */
  shown: number[];
}

const HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

export function newSideLines(patch: string): UnifiedDiffLines {
  const changed: number[] = [];
  const shown: number[] = [];
  let next = 0;
  // Lines left in the current hunk on each side; a hunk's end is known from its header, so a
  // `+++`/`---` inside a hunk is content, not a file header.
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of patch.split('\n')) {
    const header = HUNK_HEADER.exec(line);
    if (header && oldLeft === 0 && newLeft === 0) {
      next = Number(header[1]);
      newLeft = header[2] === undefined ? 1 : Number(header[2]);
      oldLeft = Number(/^@@ -\d+(?:,(\d+))?/.exec(line)?.[1] ?? 1);
      continue;
    }
    if (oldLeft === 0 && newLeft === 0) continue;
    const kind = line[0];
    if (kind === '+' && newLeft > 0) {
      changed.push(next);
      shown.push(next++);
      newLeft--;
    } else if (kind === '-' && oldLeft > 0) {
      oldLeft--;
    } else if ((kind === ' ' || line === '') && newLeft > 0 && oldLeft > 0) {
      // An empty line is a context line whose leading space an editor or a host trimmed.
      shown.push(next++);
      newLeft--;
      oldLeft--;
    }
    // `\ No newline at end of file` and anything unexpected count on neither side.
  }
  return { changed, shown };
}

/** True when the text has at least one hunk (a binary file's "Binary files … differ" has none). */
export function hasHunks(patch: string | null | undefined): patch is string {
  return typeof patch === 'string' && /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m.test(patch);
}
