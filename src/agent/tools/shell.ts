import { shellQuote } from '../../common/shell-quote.js';

export { shellQuote };

/** Exit code the confinement preamble uses: chosen outside what the tools' own commands return. */
export const ESCAPE_EXIT = 86;

/**
 * A shell preamble that sets `$t` to the real location of `relative` (links followed, missing
 * parts allowed) and exits ESCAPE_EXIT, saying so on stderr, when that lies outside the working
 * directory: a symbolic link in the tree cannot carry a tool out of it. It runs inside the
 * sandbox (the working directory as the sandbox sees it), so it holds for container sandboxes
 * too. Needs `realpath -m` (GNU coreutils, busybox) or `readlink -m`.
 */
export function confine(relative: string): string {
  const q = shellQuote(relative);
  return [
    `root=$(pwd -P) || exit ${ESCAPE_EXIT}`,
    `t=$(realpath -m -- ${q} 2>/dev/null || readlink -m -- ${q}) || { echo "cannot resolve the path" >&2; exit ${ESCAPE_EXIT}; }`,
    `case "$t/" in "$root"/*) ;; *) echo "the path leads outside the working tree" >&2; exit ${ESCAPE_EXIT};; esac`,
  ].join('\n');
}
