import { KILL_RECORDED, LEAD_OWN_GROUP } from '../process-group.js';

/** Where each exec records its process group, by exec id (inside the sandbox). */
export const EXEC_STATE_DIR = '/tmp/.pipeline-service-exec';

/**
 * Runs a command as the leader of its own process group and writes that group's id to
 * `EXEC_STATE_DIR/<exec id>`, so a second exec can kill the command with all its children
 * (`kill -KILL -<pgid>`), as the in-process backend signals its detached groups. The exec's
 * process is normally a group leader already; when it is not, `LEAD_OWN_GROUP` makes it one
 * (util-linux or busybox setsid; see there for an image without one). Then it
 * changes to the working directory and starts `/bin/sh -c <command>` with exactly the given
 * environment (`env -i`), so nothing the container carries (KUBERNETES_* variables) reaches it.
 *
 * Arguments: `$0` = this script, exec id, working directory, `NAME=value`…, then the command argv.
 */
export const EXEC_WRAPPER = [
  LEAD_OWN_GROUP,
  `d=${EXEC_STATE_DIR}; x=$1; mkdir -p "$d" && echo "$$" > "$d/$x"`,
  'shift; cd "$1" || exit 126; shift',
  'env -i "$@"; c=$?; rm -f "$d/$x"; exit $c',
].join('\n');

/** Kills the group an exec recorded (argument: the exec id); see `KILL_RECORDED`. */
export const KILL_SCRIPT = [`set -- ${EXEC_STATE_DIR}/"$1"`, KILL_RECORDED].join('\n');

/** The argv of one wrapped command. */
export function wrappedCommand(execId: string, workdir: string, env: Readonly<Record<string, string>>, command: string): string[] {
  const pairs = Object.entries(env).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`environment variable name "${name}" is not valid`);
    return `${name}=${value}`;
  });
  return ['/bin/sh', '-c', EXEC_WRAPPER, EXEC_WRAPPER, execId, workdir, ...pairs, '/bin/sh', '-c', command];
}
