import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { Exec } from '@kubernetes/client-node';
import type { ExecOptions, ExecResult, Sandbox } from '../sandbox-backend.js';
import { tarEntries } from '../tar-entries.js';
import type { TreeEntry } from '../tree-entry.js';
import { KILL_SCRIPT, wrappedCommand } from './exec-wrapper.js';
import { ExecLostError, execInPod } from './pod-exec.js';
import { SANDBOX_WORKDIR } from './pod-manifest.js';
import { checkedTreeArchive, relativeTreeArchive } from './tree-archive.js';
import { armKillSwitch } from '../command-kill-switch.js';
import { forEachOutputLine } from '../output-lines.js';

/** How long a killed command's exec may take to report before it is given up on. */
const KILL_GRACE_MS = 5000;
/** `128 + SIGKILL`: how a shell reports a command killed by SIGKILL. */
const KILLED_EXIT = 137;

export interface PodHandle {
  namespace: string;
  pod: string;
}

/**
 * A sandbox of the container-orchestrator backend: one pod; each command an exec (WebSocket)
 * through the group-recording wrapper, with the sandbox's environment; a timeout or abort kills the
 * command's group with a second exec; trees move in and out as tar streams over exec stdin/stdout.
 */
export class OrchestratorSandbox implements Sandbox {
  readonly workdir = SANDBOX_WORKDIR;
  private destroyed = false;

  constructor(
    readonly name: string,
    private readonly target: PodHandle,
    private readonly execApi: Exec,
    private readonly env: Readonly<Record<string, string>>,
    private readonly remove: () => Promise<void>,
  ) {}

  get podName(): string {
    return this.target.pod;
  }

  async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    if (this.destroyed) throw this.destroyedError();
    const execId = randomUUID();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const drained = forEachOutputLine(stdout, stderr, options.onLine);
    const argv = wrappedCommand(execId, this.workdir, { ...this.env, ...options.env }, command);
    const execution = await execInPod(this.execApi, this.target, argv, { stdout, stderr });
    let giveUp: NodeJS.Timeout | undefined;
    const kill = armKillSwitch(options, () => {
      void this.killGroup(execId);
      giveUp = setTimeout(() => execution.close(), KILL_GRACE_MS);
    });
    try {
      const exitCode = await execution.exit;
      await drained;
      if (kill.killed && exitCode === KILLED_EXIT) return { exitCode: null, signal: 'SIGKILL', timedOut: kill.timedOut };
      return { exitCode, signal: null, timedOut: kill.timedOut };
    } catch (error) {
      if (error instanceof ExecLostError && (kill.killed || this.destroyed)) return { exitCode: null, signal: 'SIGKILL', timedOut: kill.timedOut };
      throw error;
    } finally {
      kill.disarm();
      clearTimeout(giveUp);
    }
  }

  async putArchive(tar: Readable): Promise<void> {
    if (this.destroyed) {
      tar.destroy();
      throw this.destroyedError();
    }
    const { archive, done } = checkedTreeArchive(tar);
    const stderr = collect();
    const execution = await execInPod(this.execApi, this.target, ['/bin/sh', '-c', 'cd "$1" && exec tar -x -p --no-same-owner -f -', 'untar', this.workdir], {
      stdout: null,
      stderr: stderr.stream,
      stdin: archive,
    });
    done.catch(() => execution.close()); // a refused entry: stop the unpack (tar sees its stdin end)
    const [checked, exit] = await Promise.allSettled([done, execution.exit]);
    if (checked.status === 'rejected') {
      execution.close();
      throw checked.reason;
    }
    if (exit.status === 'rejected') throw exit.reason;
    if (exit.value !== 0) throw new Error(`unpacking the tree in pod ${this.target.pod} failed (exit ${exit.value}): ${stderr.text().trim()}`);
  }

  async getArchive(): Promise<Readable> {
    const { raw, finished } = await this.packTree();
    return relativeTreeArchive(raw, finished);
  }

  /** The pod's own archive read as entries, without re-packing it here; a `tar` that failed fails the read at its end. */
  async *readTree(): AsyncGenerator<TreeEntry> {
    const { raw, finished } = await this.packTree();
    yield* tarEntries(raw);
    await finished;
  }

  /** `tar -c` of the working directory in the pod; `finished` rejects when it did not exit 0. */
  private async packTree(): Promise<{ raw: Readable; finished: Promise<void> }> {
    if (this.destroyed) throw this.destroyedError();
    const raw = new PassThrough();
    const stderr = collect();
    const execution = await execInPod(this.execApi, this.target, ['tar', '-c', '--sort=name', '-C', this.workdir, '-f', '-', '.'], { stdout: raw, stderr: stderr.stream });
    const finished = execution.exit.then((code) => {
      if (code !== 0) throw new Error(`packing the tree in pod ${this.target.pod} failed (exit ${code}): ${stderr.text().trim()}`);
    });
    finished.catch(() => undefined); // a reader that stops early never awaits it
    return { raw, finished };
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await this.remove();
  }

  private async killGroup(execId: string): Promise<void> {
    try {
      const killer = await execInPod(this.execApi, this.target, ['/bin/sh', '-c', KILL_SCRIPT, 'kill', execId], { stdout: null, stderr: null });
      await killer.exit;
    } catch {
      // The pod is gone or the command ended meanwhile: nothing left to kill.
    }
  }

  private destroyedError(): Error {
    return new Error(`sandbox ${this.name} is destroyed`);
  }
}

function collect(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => {
    if (chunks.length < 64) chunks.push(chunk);
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8').slice(0, 2000) };
}
