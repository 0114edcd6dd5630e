import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sweepRemovalsLeftBehind } from '../common/remove-tree.js';
import { InProcessSandbox } from './in-process.sandbox.js';
import type { BackendVersion, ProbeResult, Sandbox, SandboxBackend, SandboxSpec } from './sandbox-backend.js';

const run = promisify(execFile);
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

export const IN_PROCESS = 'in-process';

/** Runs each sandbox as child processes in a fresh working directory on this host. */
export class InProcessBackend implements SandboxBackend {
  readonly kind = IN_PROCESS;

  /** The sweep of sandboxes an earlier process left half-removed, started by the first `create`. */
  private swept: Promise<number> | null = null;

  /** `path` is the PATH commands get (the server's own, so toolchains on it are found). */
  constructor(private readonly path: string = DEFAULT_PATH) {}

  /** Resolves once the sweep the first `create` started is done, answering how many trees it removed (0 before any create). */
  async leftBehindSwept(): Promise<number> {
    return (await this.swept) ?? 0;
  }

  /** Answers when it can make a working directory and start a shell in it. */
  async probe(): Promise<ProbeResult> {
    let dir: string | null = null;
    try {
      dir = await mkdtemp(join(tmpdir(), 'pipeline-service-probe-'));
      await run('/bin/sh', ['-c', 'exit 0'], { cwd: dir, timeout: 5000 });
      return { ok: true, detail: 'in-process backend can create a working directory and start /bin/sh' };
    } catch (error) {
      return { ok: false, reason: `in-process backend cannot start a shell: ${(error as Error).message}`, fixHint: 'make /bin/sh and the temp directory available to the server user' };
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }

  /** Nothing to reach: the backend is this process. */
  async version(): Promise<BackendVersion> {
    return { version: `in-process (Node.js ${process.version})`, target: null };
  }

  /**
   * A fresh directory holding `work/`, where commands start, and `home/`, their HOME: apart, so
   * what tools keep there (`~/.npm`, `~/.gitconfig`) stays out of the tree the server takes back.
   * The directory's name carries the run id (`pipeline-service-<first 8 characters>-<name>-…`).
   * Commands see only PATH, HOME, LANG and the run's variables.
   */
  async create(spec: SandboxSpec): Promise<Sandbox> {
    // Sandboxes whose removal an earlier process's end cut short: freed behind this one's creation.
    this.swept ??= sweepRemovalsLeftBehind(tmpdir()).catch(() => 0);
    const safe = spec.name.replace(/[^A-Za-z0-9_.-]/g, '_');
    const root = await mkdtemp(join(tmpdir(), `pipeline-service-${spec.runId.slice(0, 8)}-${safe}-`));
    const workdir = join(root, 'work');
    const home = join(root, 'home');
    try {
      await Promise.all([mkdir(workdir), mkdir(home)]);
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
    const env = { PATH: this.path, HOME: home, LANG: 'C.UTF-8', ...spec.env };
    return new InProcessSandbox(spec.name, { root, workdir }, env);
  }
}
