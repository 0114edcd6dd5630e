import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { type ExecOptions, type ExecResult, OutputStream } from '../sandbox-backend.js';
import { armKillSwitch } from '../command-kill-switch.js';
import { KILL_RECORDED, LEAD_OWN_GROUP } from '../process-group.js';
import { forEachOutputLine } from '../output-lines.js';

/** How long the output of a killed command may keep coming before the result is given anyway. */
const KILL_GRACE_MS = 2000;

/** What an exec needs to know of its container. */
export interface ExecTarget {
  docker: Docker;
  container: Docker.Container;
  user: string;
  workdir: string;
  /** Variables the engine or the image put in every process (HOSTNAME, an image's ENV) that commands must not see. */
  unset: readonly string[];
}

/**
 * The engine cannot kill an exec, so every command runs under a wrapper that leads a process
 * group of its own (`LEAD_OWN_GROUP`, portable across util-linux and busybox images and images
 * without setsid) and records that group's id, its pid, in a file: a second exec kills the whole
 * group, children included. The command runs as a child, so the record is removed once it ends
 * (a later kill cannot hit a reused pid) and its exit status is passed on.
 *
 * Arguments: `$0` = this script, the record file, the command.
 */
export function execWrapper(unset: readonly string[]): string {
  return [
    LEAD_OWN_GROUP,
    `unset ${unset.join(' ')}`,
    'echo $$ > "$1"',
    '/bin/sh -c "$2"; c=$?; rm -f "$1"; exit $c',
  ].join('\n');
}

/** The argv of one wrapped command. */
export function wrappedExec(unset: readonly string[], pidFile: string, command: string): string[] {
  const script = execWrapper(unset);
  return ['/bin/sh', '-c', script, script, pidFile, command];
}

/** Runs one command through the engine's exec API, streaming its lines; see `Sandbox.exec`. */
export async function execCommand(target: ExecTarget, command: string, options: ExecOptions): Promise<ExecResult> {
  const pidFile = `/tmp/.pipeline-service-exec-${randomBytes(6).toString('hex')}`;
  const exec = await target.container.exec({
    Cmd: wrappedExec(target.unset, pidFile, command),
    AttachStdout: true, AttachStderr: true, AttachStdin: false, Tty: false,
    User: target.user, WorkingDir: target.workdir,
    Env: Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`),
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const drained = streamLines(target.docker, stream, options.onLine);

  let markKilled = () => undefined as void;
  const afterKill = new Promise<void>((done) => (markKilled = done)).then(() => sleep(KILL_GRACE_MS));
  const kill = armKillSwitch(options, () => {
    markKilled();
    void killGroup(target, pidFile).catch(() => undefined);
  });
  try {
    // Once killed, the output gets KILL_GRACE_MS more to end: a process that escaped the group may hold it.
    await Promise.race([drained, afterKill]);
  } finally {
    kill.disarm();
  }
  if (kill.killed) return { exitCode: null, signal: 'SIGKILL', timedOut: kill.timedOut };
  return { exitCode: await exitCodeOf(exec), signal: null, timedOut: false };
}

/** Demultiplexes the hijacked stream into stdout and stderr lines; resolves when both end. */
function streamLines(docker: Docker, stream: NodeJS.ReadWriteStream, onLine: ExecOptions['onLine']): Promise<void> {
  const outputs = [
    { name: OutputStream.Stdout, through: new PassThrough() },
    { name: OutputStream.Stderr, through: new PassThrough() },
  ];
  docker.modem.demuxStream(stream, outputs[0]!.through, outputs[1]!.through);
  const end = () => outputs.forEach((o) => o.through.end());
  stream.once('end', end);
  stream.once('close', end);
  stream.once('error', end);
  return forEachOutputLine(outputs[0]!.through, outputs[1]!.through, onLine);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

async function killGroup(target: ExecTarget, pidFile: string): Promise<void> {
  const exec = await target.container.exec({
    Cmd: ['/bin/sh', '-c', KILL_RECORDED, 'sandbox-kill', pidFile], AttachStdout: true, AttachStderr: true, User: target.user,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  stream.resume();
  await new Promise((done) => stream.once('end', done).once('close', done).once('error', done));
}

/** The exit code the engine recorded; the output can end a moment before the exec is marked done. */
async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const info = await exec.inspect();
    if (!info.Running) return info.ExitCode ?? null;
    await new Promise((done) => setTimeout(done, 20));
  }
  return null;
}
