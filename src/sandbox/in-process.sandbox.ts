import type { Readable } from 'node:stream';
import { type LaunchedCommand, processLauncher } from '../common/launcher/process-launcher.js';
import { groupDeadline, signalGroup } from '../common/process-group.js';
import { removeTreeBehind } from '../common/remove-tree.js';
import { forEachOutputLine } from './output-lines.js';
import { directoryEntries, packDirectory, treePaths } from './pack-directory.js';
import type { ExecOptions, ExecResult, Sandbox } from './sandbox-backend.js';
import type { TreeEntry, TreeMark } from './tree-entry.js';
import { TreeMarks } from './tree-marks.js';
import { unpackInto, WrittenFiles } from './unpack-into.js';

/** How long the output of an exited command may keep coming (a grandchild holding the pipe). */
const KILL_GRACE_MS = 2000;

/** Where an in-process sandbox lives: `workdir` (the tree) and whatever else, all under `root`. */
export interface SandboxDirectories {
  root: string;
  workdir: string;
}

/**
 * A sandbox of the in-process backend: a fresh directory on this host; each command is
 * `/bin/sh -c` in its own process group (so a timeout kills its children too) with exactly the
 * environment it is given. Trees move in and out with the host-directory tar helpers.
 */
export class InProcessSandbox implements Sandbox {
  private readonly running = new Set<LaunchedCommand>();
  private readonly marks = new TreeMarks();
  /**
   * What `putArchive` wrote into the tree while nothing else could change it (no command has run
   * yet): a mark is taken from it, without looking at the tree again, when it covers every file.
   */
  private written: WrittenFiles | null = new WrittenFiles();
  private destroyed = false;

  readonly workdir: string;
  private readonly root: string;

  constructor(
    readonly name: string,
    directories: SandboxDirectories,
    private readonly env: Readonly<Record<string, string>>,
  ) {
    this.workdir = directories.workdir;
    this.root = directories.root;
  }

  exec(command: string, options: ExecOptions): Promise<ExecResult> {
    if (this.destroyed) return Promise.reject(this.destroyedError());
    this.written = null; // the command may change any file
    return new Promise((resolve, reject) => {
      const child = processLauncher.launch('/bin/sh', ['-c', command], {
        cwd: this.workdir,
        env: { ...this.env, ...options.env },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      this.running.add(child);
      const deadline = groupDeadline(child, options.timeoutMs);
      const abort = () => signalGroup(child, 'SIGKILL');
      options.signal?.addEventListener('abort', abort, { once: true });
      if (options.signal?.aborted) abort();
      const drained = forEachOutputLine(child.stdout!, child.stderr!, options.onLine);
      child.once('error', (error) => {
        deadline.clear();
        options.signal?.removeEventListener('abort', abort);
        this.running.delete(child);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        deadline.clear();
        options.signal?.removeEventListener('abort', abort);
        this.running.delete(child);
        // Output of a killed group may never close if a grandchild keeps the pipe: bound the wait.
        void Promise.race([drained, new Promise((done) => setTimeout(done, KILL_GRACE_MS))])
          .then(() => resolve({ exitCode: code, signal, timedOut: deadline.timedOut }));
      });
    });
  }

  putArchive(tar: Readable): Promise<void> {
    if (this.destroyed) {
      tar.destroy(); // nobody will read it: do not leave its producer waiting
      return Promise.reject(this.destroyedError());
    }
    return unpackInto(this.workdir, tar, undefined, this.written ?? undefined);
  }

  async getArchive(): Promise<Readable> {
    if (this.destroyed) throw this.destroyedError();
    return packDirectory(this.workdir);
  }

  readTree(since?: TreeMark): AsyncIterable<TreeEntry> {
    if (this.destroyed) throw this.destroyedError();
    if (!this.marks.has(since)) return directoryEntries(this.workdir);
    return directoryEntries(this.workdir, (path) => this.marks.unchangedSince(since, this.workdir, path));
  }

  markTree(): Promise<TreeMark> {
    if (this.destroyed) return Promise.reject(this.destroyedError());
    if (this.written?.complete) return Promise.resolve(this.marks.noteWritten(this.written.files));
    return this.marks.note(this.workdir, treePaths(this.workdir));
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const child of this.running) signalGroup(child, 'SIGKILL');
    // Gone from its place when this resolves; its files are freed behind the run's end.
    await removeTreeBehind(this.root);
  }

  private destroyedError(): Error {
    return new Error(`sandbox ${this.name} is destroyed`);
  }
}
