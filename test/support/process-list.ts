/**
 * A command listing the live processes of a sandbox from /proc alone (GNU and busybox `ps`
 * differ): one line `<state> <argv>` each, zombies (state Z, killed but not yet reaped) left out.
 */
export const LIVE_PROCESSES = [
  'for d in /proc/[0-9]*; do',
  '  read -r l 2>/dev/null < "$d/stat" || continue; s=${l##*) }; s=${s%% *}',
  '  [ "$s" = Z ] || echo "$s $(tr "\\0" " " < "$d/cmdline" 2>/dev/null)"',
  'done',
].join('\n');

/** The argv (as a line) of each listed process whose argv starts with `prefix`. */
export function running(lines: readonly string[], prefix: string): string[] {
  return lines.map((l) => l.slice(l.indexOf(' ') + 1).trim()).filter((argv) => argv.startsWith(prefix));
}
