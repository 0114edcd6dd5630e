/** Where each exec records its process group, by exec id (inside the sandbox). */
export const EXEC_STATE_DIR = '/tmp/.pipeline-service-exec';

/**
 * Runs a command as the leader of its own process group and writes that group's id to
 * `EXEC_STATE_DIR/<exec id>`, so a second exec can kill the command with all its children
 * (`kill -KILL -<pgid>`), as the in-process backend signals its detached groups. The exec's
 * process is normally a group leader already; when it is not, `setsid` makes it one. Then it
 * changes to the working directory and starts `/bin/sh -c <command>` with exactly the given
 * environment (`env -i`), so nothing the container carries (KUBERNETES_* variables) reaches it.
 *
 * Arguments: `$0` = this script, exec id, working directory, `NAME=value`…, then the command argv.
 */
export const EXEC_WRAPPER = [
  'read -r _ _ _ _ g _ < /proc/$$/stat',
  'if [ "$g" != "$$" ] && command -v setsid >/dev/null 2>&1; then exec setsid /bin/sh -c "$0" "$0" "$@"; fi',
  `d=${EXEC_STATE_DIR}; x=$1; mkdir -p "$d" && echo "$$" > "$d/$x"`,
  'shift; cd "$1" || exit 126; shift',
  'env -i "$@"; c=$?; rm -f "$d/$x"; exit $c',
].join('\n');

/** Kills the group an exec recorded, waiting up to ~5 s for the record (the command may be starting). */
export const KILL_SCRIPT = [
  `f=${EXEC_STATE_DIR}/$1; i=0`,
  'while [ ! -f "$f" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
  'p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] && kill -KILL -"$p"',
].join('\n');

/** The argv of one wrapped command. */
export function wrappedCommand(execId: string, workdir: string, env: Readonly<Record<string, string>>, command: string): string[] {
  const pairs = Object.entries(env).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`environment variable name "${name}" is not valid`);
    return `${name}=${value}`;
  });
  return ['/bin/sh', '-c', EXEC_WRAPPER, EXEC_WRAPPER, execId, workdir, ...pairs, '/bin/sh', '-c', command];
}
