/**
 * Shell lines, shared by both container backends' exec wrappers, after which the wrapper's own
 * process (`$$`) leads a process group, so the pid it records is a group a second exec can kill
 * with all the command's children. The wrapper must be run as `/bin/sh -c <script> <script> …`
 * ("$0" is the script itself), because it may re-run itself.
 *
 * Engines start each exec as a session leader (runc does), so normally nothing happens. When the
 * exec is not a group leader, `setsid` runs the wrapper again in a new session. That works with
 * util-linux's and busybox's setsid alike, and neither needs `-w` (which busybox lacks): a caller
 * that leads no group gets its session in place (setsid() succeeds, no fork), so the pid stays
 * the same and the exit status passes straight on. `set -m` is no substitute: dash and busybox
 * ash turn job control off without a terminal. With neither, the pid is recorded all the same
 * and `KILL_RECORDED` falls back to the process and its descendants.
 */
export const LEAD_OWN_GROUP = [
  'read -r _ _ _ _ g _ < /proc/$$/stat',
  'if [ "$g" != "$$" ] && command -v setsid >/dev/null 2>&1; then exec setsid /bin/sh -c "$0" "$0" "$@"; fi',
].join('\n');

/**
 * Kills what a wrapper recorded in the file `$1`, waiting up to ~5 s for the record (the command
 * may be starting): the group it leads, else (it leads none: no setsid and an exec runtime that
 * does not make execs lead their groups) that process and its descendants, found through
 * /proc/<pid>/stat (the parent pid follows the parenthesised name). Each is stopped when found,
 * so none forks more while the tree is walked, then all are killed.
 */
export const KILL_RECORDED = [
  'f=$1; i=0',
  'while [ ! -s "$f" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
  'p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] || exit 1',
  'kill -KILL -"$p" 2>/dev/null && exit 0',
  'kill -STOP "$p" || exit 1',
  't=" $p "; n=0',
  'while [ "$n" != "${#t}" ]; do',
  '  n=${#t}',
  '  for s in /proc/[0-9]*/stat; do',
  '    read -r l 2>/dev/null < "$s" || continue',
  '    set -- ${l##*) }; q=${s#/proc/}; q=${q%/stat}',
  '    case "$t" in *" $q "*) ;; *" $2 "*) kill -STOP "$q" 2>/dev/null; t="$t$q " ;; esac',
  '  done',
  'done',
  'kill -KILL $t',
].join('\n');
