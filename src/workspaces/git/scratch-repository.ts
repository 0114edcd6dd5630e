import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { addedLinesOf, type FileAdditions } from './added-lines.js';
import { type GitCli, GitCommandFailure, type GitRunOptions } from './git-command.js';
import type { GitCredential } from './git-credential.js';
import { workspaceErrorFrom } from './git-failure.js';
import type { TreeEntry } from '../../sandbox/tree-entry.js';
import { type UnpackOptions, unpackEntries, UnsafeArchiveError, WholeTreeNeededError } from './tree-unpacker.js';
import { WorkspaceError, WorkspaceErrorKind } from './workspace-error.js';
import type { ChangedFile, ChangedFileStatus, CommitDetails, StagedFile } from './workspace-types.js';

/** A submodule's entry (a commit, not a blob) in a tree or an index. */
const SUBMODULE_MODE = '160000';

const STATUS: Record<string, ChangedFileStatus> = { A: 'added', M: 'modified', D: 'deleted', T: 'type-changed' };

export interface ScratchOptions {
  git: GitCli;
  /** The repository's configured name, for messages. */
  repository: string;
  /** `<dataDir>/workspaces/<unique>`: holds `git/` (the git directory) and `tree/` (the working tree). */
  dir: string;
  localTimeoutMs: number;
  networkTimeoutMs: number;
}

/** A file of the prepared commit, as `git ls-tree` lists it. */
interface BaseFile {
  mode: string;
  sha: string;
}

/**
 * A throw-away repository for one collect: its own git directory (borrowing every object of the
 * mirror through alternates, so nothing is copied), an index at the prepared commit, and a working
 * tree holding the sandbox's files. Nothing is checked out: the index is read from the commit and
 * `git add -A` compares the sandbox's files with it. A file the sandbox sends back exactly as the
 * commit holds it (same mode, same blob) is not written at all: its index entry is marked
 * skip-worktree, which git reads as "up to date", so only the changed files reach the disk and
 * git hashes only them.
 */
export class ScratchRepository {
  private readonly gitDir: string;
  private readonly workTree: string;
  /** The files of the commit `create` read, listed from the index it read (null: it has a submodule). */
  private baseFiles: Promise<Map<string, BaseFile> | null> | null = null;
  /** The tree `stage` wrote of the index, which `commit` commits (nothing changes the index between). */
  private stagedTree: string | null = null;
  /** Work still reading this repository after its caller moved on (the mirror's update): `remove` waits for it. */
  private behind: Promise<void> = Promise.resolve();

  constructor(private readonly options: ScratchOptions) {
    this.gitDir = join(options.dir, 'git');
    this.workTree = join(options.dir, 'tree');
  }

  /** Creates the git directory on the mirror's objects with the index at `commit`. */
  async create(mirrorPath: string, commit: string): Promise<void> {
    await mkdir(this.workTree, { recursive: true });
    await this.git('creating the scratch repository', ['init', '--quiet', '--template=']);
    await mkdir(join(this.gitDir, 'objects', 'info'), { recursive: true });
    await writeFile(join(this.gitDir, 'objects', 'info', 'alternates'), `${join(mirrorPath, 'objects')}\n`);
    const read = this.git('reading the prepared commit', ['read-tree', commit]);
    // The index just read lists the commit's files: reading it costs a fraction of walking the
    // commit's trees again with ls-tree (10,000 files: under 10 ms against 30-50 ms of CPU).
    this.baseFiles = read.then(() => this.listIndex());
    this.baseFiles.catch(() => undefined); // awaited by unpack; a failure here is read-tree's too
    await read;
  }

  /**
   * The sandbox's tree (`open` answers its entries; asked again when the tree must be written whole) into
   * the working tree, `.git` entries skipped, escapes refused; files the commit `create` read holds
   * as they are stay unwritten. The whole tree is written when that commit has a submodule, or the
   * tree a `.gitattributes` (filters and line endings make a file's bytes differ from its blob) or a
   * hard link to an unwritten file.
   */
  async unpack(open: () => Promise<AsyncIterable<TreeEntry>>): Promise<void> {
    if (this.baseFiles === null) throw new Error('unpack() before create(): there is no index to compare with');
    const known = await this.baseFiles;
    if (known) {
      try {
        const { kept } = await this.unpackChecked(await open(), {
          unchanged: (path, mode, content) => sameAsBase(known.get(path), path, mode, content),
          // The tree was marked right after the commit was put in: a file unchanged since holds its blob.
          unchangedMarked: (path, mode) => keptAsBase(known.get(path), path, mode),
        });
        if (kept.size > 0) await this.git('marking the unchanged files', ['update-index', '--skip-worktree', '-z', '--stdin'], { input: [...kept].join('\0') + '\0' });
        return;
      } catch (error) {
        if (!(error instanceof WholeTreeNeededError)) throw error;
        await rm(this.workTree, { recursive: true, force: true });
        await mkdir(this.workTree, { recursive: true });
      }
    }
    await this.unpackChecked(await open());
  }

  /** The files of the index `create` read (every entry at stage 0) by path; null when one is a submodule (no file to compare). */
  private async listIndex(): Promise<Map<string, BaseFile> | null> {
    const listing = await this.git('listing the prepared commit', ['ls-files', '--stage', '-z']);
    const files = new Map<string, BaseFile>();
    for (const record of listing.split('\0')) {
      if (!record) continue;
      const tab = record.indexOf('\t');
      const [mode, sha] = record.slice(0, tab).split(' ');
      if (mode === SUBMODULE_MODE || !mode || !sha) return null;
      files.set(record.slice(tab + 1), { mode, sha });
    }
    return files;
  }

  private async unpackChecked(tree: AsyncIterable<TreeEntry>, options?: UnpackOptions): Promise<{ kept: Set<string> }> {
    try {
      return await unpackEntries(tree, this.workTree, options);
    } catch (error) {
      if (error instanceof UnsafeArchiveError) {
        throw new WorkspaceError(WorkspaceErrorKind.Failed, `repository ${this.options.repository}: the sandbox's tree was refused: ${error.message}`);
      }
      throw error;
    }
  }

  /** Stages everything (deletions too, .gitignore honoured) and lists what differs from `base`. */
  async stage(base: string): Promise<ChangedFile[]> {
    // No pathspec: `-- .` matching only skip-worktree entries (a sandbox that changed nothing)
    // makes git refuse them as "outside the sparse-checkout"; the whole tree is the same scope.
    await this.git('staging the changes', ['add', '--all']);
    // The index as a tree, compared tree to tree: subtrees with the same id are skipped, where
    // comparing the index with `base` (diff --cached) walks all of `base`.
    this.stagedTree = (await this.git('writing the tree', ['write-tree'])).trim();
    const out = await this.git('listing the changes', ['diff-tree', '-r', '--name-status', '--no-renames', '-z', base, this.stagedTree]);
    const fields = out.split('\0');
    const files: ChangedFile[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      files.push({ status: STATUS[fields[i]!.charAt(0)] ?? 'modified', path: fields[i + 1]! });
    }
    return files;
  }

  /**
   * The index's entries at exactly `paths` (mode and bytes, read from git's objects): a path the
   * index lacks, or holds only things below, is left out.
   */
  async stagedFiles(paths: readonly string[]): Promise<StagedFile[]> {
    if (paths.length === 0) return [];
    const literal = { GIT_LITERAL_PATHSPECS: '1' };
    const listing = await this.git('reading the staged files', ['ls-files', '--stage', '-z', '--', ...paths], { variables: literal });
    const files: StagedFile[] = [];
    for (const record of listing.split('\0').filter(Boolean)) {
      const tab = record.indexOf('\t');
      const [mode, sha] = record.slice(0, tab).split(' ');
      const path = record.slice(tab + 1);
      if (!paths.includes(path) || !mode || !sha) continue;
      files.push({ path, mode, content: await this.blob(sha) });
    }
    return files;
  }

  /** Added lines of the staged diff against `base`, streamed from git file by file. */
  async *addedLines(base: string): AsyncGenerator<FileAdditions> {
    if (this.stagedTree === null) throw new Error('addedLines() before stage(): nothing is staged');
    const diff = this.options.git.stream(
      ['diff-tree', '-r', '-p', '--text', '-U0', '--no-renames', '--no-color', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', base, this.stagedTree],
      this.runOptions(),
    );
    try {
      yield* addedLinesOf(diff.stdout);
      await diff.done;
    } catch (error) {
      if (error instanceof GitCommandFailure) throw workspaceErrorFrom(error, { repository: this.options.repository, action: 'reading the staged diff' }, WorkspaceErrorKind.Failed);
      throw error;
    } finally {
      diff.stop();
    }
  }

  /** A commit of the index with `parent` as its parent; author and committer are the same. */
  async commit(parent: string, details: CommitDetails): Promise<string> {
    const tree = this.stagedTree ?? (await this.git('writing the tree', ['write-tree'])).trim();
    const message = details.message.endsWith('\n') ? details.message : `${details.message}\n`;
    const when = `${Math.floor(Date.now() / 1000)} +0000`;
    const identity = {
      GIT_AUTHOR_NAME: details.authorName,
      GIT_AUTHOR_EMAIL: details.authorEmail,
      GIT_AUTHOR_DATE: when,
      GIT_COMMITTER_NAME: details.authorName,
      GIT_COMMITTER_EMAIL: details.authorEmail,
      GIT_COMMITTER_DATE: when,
    };
    return (await this.git('committing', ['commit-tree', tree, '-p', parent, '-F', '-'], { variables: identity, input: message })).trim();
  }

  /**
   * Pushes `commit` to `refs/heads/<branch>` of `url`, never forced: the remote branch must still
   * be `expectedTip` (null: must not exist), checked by the host atomically with the update.
   */
  async push(url: string, credential: GitCredential, commit: string, branch: string, expectedTip: string | null): Promise<void> {
    const ref = `refs/heads/${branch}`;
    try {
      await this.options.git.run(['push', '--quiet', '--no-verify', `--force-with-lease=${ref}:${expectedTip ?? ''}`, url, `${commit}:${ref}`], {
        ...this.runOptions(),
        credential,
        credentialUrl: url,
        timeoutMs: this.options.networkTimeoutMs,
      });
    } catch (error) {
      if (error instanceof GitCommandFailure) throw workspaceErrorFrom(error, { repository: this.options.repository, action: `pushing ${branch}`, credential });
      throw error;
    }
  }

  /** Records `commit` as `branch` in the mirror (a local push; the mirror's lock is the caller's). */
  async pushToMirror(mirrorPath: string, commit: string, branch: string): Promise<void> {
    await this.git('updating the mirror', ['push', '--quiet', '--no-verify', mirrorPath, `+${commit}:refs/heads/${branch}`]);
  }

  /** Lets `work` (which reads this repository) go on behind the caller; `remove` waits for it. Its failure is ignored. */
  leaveBehind(work: Promise<unknown>): void {
    const previous = this.behind;
    this.behind = Promise.all([previous, work.catch(() => undefined)]).then(() => undefined);
  }

  private async blob(sha: string): Promise<Buffer> {
    const read = this.options.git.stream(['cat-file', 'blob', sha], this.runOptions());
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of read.stdout) chunks.push(chunk as Buffer);
      await read.done;
    } catch (error) {
      if (error instanceof GitCommandFailure) throw workspaceErrorFrom(error, { repository: this.options.repository, action: 'reading a staged file' }, WorkspaceErrorKind.Failed);
      throw error;
    } finally {
      read.stop();
    }
    return Buffer.concat(chunks);
  }

  /** Safe to call twice. Waits for the work left behind first. */
  async remove(): Promise<void> {
    await this.behind;
    await rm(this.options.dir, { recursive: true, force: true });
  }

  private runOptions(): GitRunOptions {
    return { cwd: this.workTree, variables: { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.workTree }, timeoutMs: this.options.localTimeoutMs };
  }

  private async git(action: string, args: string[], extra: { variables?: Record<string, string>; input?: string } = {}): Promise<string> {
    const base = this.runOptions();
    try {
      return await this.options.git.run(args, { ...base, variables: { ...base.variables, ...extra.variables }, input: extra.input });
    } catch (error) {
      if (error instanceof GitCommandFailure) throw workspaceErrorFrom(error, { repository: this.options.repository, action }, WorkspaceErrorKind.Failed);
      throw error;
    }
  }
}

/**
 * Whether a file may stay unwritten as the base's: the base has it with that mode, and it is no
 * `.gitignore` (those are always written: staging reads them from disk).
 */
function keptAsBase(file: BaseFile | undefined, path: string, mode: string): file is BaseFile {
  return file !== undefined && file.mode === mode && posix.basename(path) !== '.gitignore';
}

/** Whether a file the sandbox sent is exactly the base's: `keptAsBase`, and the same blob id (git's object hash of the bytes). */
function sameAsBase(file: BaseFile | undefined, path: string, mode: string, content: Buffer): boolean {
  if (!keptAsBase(file, path, mode)) return false;
  const hash = createHash(file.sha.length === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${content.length}\0`);
  hash.update(content);
  return hash.digest('hex') === file.sha;
}
