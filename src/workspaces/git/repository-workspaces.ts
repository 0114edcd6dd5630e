import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { RepoConfig } from '../../config/service-config.js';
import type { CommittedTree } from '../../pipelines/pipeline.js';
import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import type { TreeMark } from '../../sandbox/tree-entry.js';
import { tarEntries } from '../../sandbox/tar-entries.js';
import type { FileAdditions } from './added-lines.js';
import { GitCli, GitCommandFailure } from './git-command.js';
import { DEFAULT_GIT_PATH } from './git-environment.js';
import { workspaceErrorFrom } from './git-failure.js';
import { type HeadRefs, MIRROR_CONFIG, MirrorCache } from './mirror-cache.js';
import { cloneUrlOf } from './repository-url.js';
import { ScratchRepository } from './scratch-repository.js';
import { WorkspaceError, WorkspaceErrorKind } from './workspace-error.js';
import type { ChangedFile, CommitDetails, PreparedTree, StagedChange, StagedFile, WorkspaceSource } from './workspace-types.js';

/** `image:` of a context.yaml, when it is a non-empty string (a file that does not parse names none: the gate reports it). */
function imageNamedBy(text: string): string | null {
  try {
    const parsed: unknown = parseYaml(text);
    const image = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>).image : undefined;
    return typeof image === 'string' && image.trim() !== '' ? image.trim() : null;
  } catch {
    return null;
  }
}

export interface RepositoryWorkspacesOptions {
  /** SERVICE_DATA_DIR: mirrors go to `git-mirrors/`, scratch repositories to `workspaces/`. */
  dataDir: string;
  /** PATH git is found on (default /usr/local/bin:/usr/bin:/bin). */
  path?: string;
  /** Time limit of each fetch and push (default 10 minutes). */
  networkTimeoutMs?: number;
  /** Time limit of each local git operation (default 5 minutes). */
  localTimeoutMs?: number;
}

/** A start the caller chose instead of the work or base branch: a pull request's head. */
export interface PinnedStart {
  /** What events call the start (`pull request #12 (feature/x)`). */
  branch: string;
  commit: string;
}

interface ChangeState {
  scratch: ScratchRepository;
  commitSha: string | null;
}

/** A scratch repository made for a prepared tree's first collect while the run's steps still run. */
interface EarlyScratch {
  scratch: ScratchRepository;
  created: Promise<void>;
}

/**
 * The server's side of a run's repositories: a tree goes into a sandbox from the mirror cache
 * (`prepare`), the sandbox's tree comes back into a scratch repository (`collect`), becomes a
 * commit and is pushed to the work branch. Only tar streams cross to the sandbox; the credential
 * never leaves the server's git processes' environment.
 */
export class RepositoryWorkspaces {
  private readonly git: GitCli;
  private readonly mirrors: MirrorCache;
  private readonly networkTimeoutMs: number;
  private readonly localTimeoutMs: number;
  private readonly changes = new WeakMap<StagedChange, ChangeState>();
  /** Scratch repositories not yet released, per prepared tree (so releasing the tree removes them all). */
  private readonly scratches = new WeakMap<PreparedTree, Set<ScratchRepository>>();
  /** Per prepared tree that will be collected: the first collect's scratch repository, made at prepare. */
  private readonly earlyScratches = new WeakMap<PreparedTree, EarlyScratch>();
  /** Releases going on behind their callers. */
  private readonly removals = new Set<Promise<void>>();
  private homeReady: Promise<unknown> | null = null;

  constructor(private readonly options: RepositoryWorkspacesOptions) {
    this.networkTimeoutMs = options.networkTimeoutMs ?? 10 * 60_000;
    this.localTimeoutMs = options.localTimeoutMs ?? 5 * 60_000;
    this.git = new GitCli({ home: this.home, path: options.path ?? DEFAULT_GIT_PATH });
    this.mirrors = new MirrorCache({
      dataDir: options.dataDir,
      git: this.git,
      networkTimeoutMs: this.networkTimeoutMs,
      localTimeoutMs: this.localTimeoutMs,
      lockWaitMs: this.networkTimeoutMs + this.localTimeoutMs,
    });
  }

  /**
   * Syncs the mirror and streams the start commit's tree into the sandbox: the work branch when
   * the remote has it (resume), else the base branch. No checkout on the server.
   */
  /**
   * Brings the repository's mirror up to date with its remote and answers its branches' tips;
   * hand them to `contextImage` and `prepare` so one fetch serves both.
   */
  async sync(source: WorkspaceSource): Promise<HeadRefs> {
    await this.ready();
    return this.mirrors.sync(source.repo, source.credential);
  }

  /**
   * Puts the tree of the start commit into the sandbox. `options.collect` false: the tree will
   * never be collected (a read-only run or look), so it is not marked for collect.
   */
  async prepare(source: WorkspaceSource, sandbox: Sandbox, synced?: HeadRefs, pinned?: PinnedStart, options: { collect?: boolean } = {}): Promise<PreparedTree> {
    const { repo, workBranch, baseBranch } = source;
    const heads = pinned ? new Map<string, string>() : synced ?? await this.sync(source);
    const resumed = !pinned && heads.has(workBranch);
    const startBranch = pinned?.branch ?? (resumed ? workBranch : baseBranch);
    const commit = pinned?.commit ?? heads.get(startBranch);
    if (!commit) {
      throw new WorkspaceError(
        WorkspaceErrorKind.NotFound,
        `repository ${repo.name}: the base branch "${baseBranch}" does not exist on the remote: set the repository's branch: key to an existing branch, or create "${baseBranch}"`,
      );
    }
    const archive = this.git.stream(['archive', '--format=tar', '--worktree-attributes', commit], {
      variables: { GIT_DIR: this.mirrors.pathFor(repo) },
      config: MIRROR_CONFIG,
      timeoutMs: this.localTimeoutMs,
    });
    try {
      await Promise.all([sandbox.putArchive(archive.stdout), archive.done]);
    } catch (error) {
      archive.stop();
      if (error instanceof GitCommandFailure) throw workspaceErrorFrom(error, { repository: repo.name, action: 'reading the tree from the mirror' }, WorkspaceErrorKind.Failed);
      throw error;
    }
    if (options.collect === false) return { source, startBranch, resumed, commit };
    // The collect's scratch repository (reading the commit's 10,000-file tree into an index takes
    // about 0.1 s) is made now, beside the mark and the run's steps, instead of after them.
    const early = this.newScratch(repo);
    const created = this.ready().then(() => early.create(this.mirrors.pathFor(repo), commit));
    created.catch(() => undefined); // awaited by the first collect, which reports its failure
    let mark: TreeMark | undefined;
    try {
      // Before any command runs: what is still as marked when collected is the commit's file.
      mark = await sandbox.markTree?.();
    } catch (error) {
      await created.catch(() => undefined);
      await early.remove();
      throw error;
    }
    const prepared: PreparedTree = { source, startBranch, resumed, commit, ...(mark ? { mark } : {}) };
    this.track(prepared, early);
    this.earlyScratches.set(prepared, { scratch: early, created });
    return prepared;
  }

  /**
   * Fetches a ref that is not a branch into the mirror (a pull request's head kept by the base
   * repository, which is how a fork's head is reached) and answers its commit. Sync first.
   */
  async fetchRef(source: WorkspaceSource, ref: string): Promise<string> {
    await this.ready();
    return this.mirrors.fetchRef(source.repo, source.credential, ref);
  }

  /**
   * Read-only git against the repository's mirror at `commit`, for scanners that read the tree
   * and its history on the server (the sandbox has neither `.git` nor a credential). Each command
   * gets the network time limit: a history scan of a large repository is long, never unbounded.
   */
  committedTree(repo: RepoConfig, commit: string): CommittedTree {
    const options = { variables: { GIT_DIR: this.mirrors.pathFor(repo) }, config: MIRROR_CONFIG, timeoutMs: this.networkTimeoutMs };
    return { repo: repo.name, commit, git: (args) => this.git.stream(args, options) };
  }

  /**
   * The `image` the tree's contexts name (each `.service/contexts/<name>/context.yaml`, the first by name
   * that has one), read from the mirror without a checkout; null when none does. The tree is the
   * work branch when the remote has it, else the base branch, as `prepare` takes it.
   */
  async contextImage(source: WorkspaceSource, synced?: HeadRefs): Promise<string | null> {
    const heads = synced ?? await this.sync(source);
    const commit = heads.get(source.workBranch) ?? heads.get(source.baseBranch);
    if (!commit) return null;
    const options = { variables: { GIT_DIR: this.mirrors.pathFor(source.repo) }, config: MIRROR_CONFIG, timeoutMs: this.localTimeoutMs };
    const listing = await this.git.run(['ls-tree', '-r', '--name-only', commit, '--', '.service/contexts'], options);
    const files = listing.split('\n').filter((path) => /^\.service\/contexts\/[^/]+\/context\.yaml$/.test(path)).sort();
    for (const path of files) {
      const image = imageNamedBy(await this.git.run(['show', `${commit}:${path}`], options));
      if (image) return image;
    }
    return null;
  }

  /**
   * The paths under `.service/contexts` on `branch` as the remote has it now (a fresh mirror
   * sync), without a checkout; null when the remote has no such branch.
   */
  async contextPathsOn(source: Omit<WorkspaceSource, 'workBranch' | 'baseBranch'>, branch: string): Promise<string[] | null> {
    await this.ready();
    const heads = await this.mirrors.sync(source.repo, source.credential);
    const commit = heads.get(branch);
    if (!commit) return null;
    const options = { variables: { GIT_DIR: this.mirrors.pathFor(source.repo) }, config: MIRROR_CONFIG, timeoutMs: this.localTimeoutMs };
    const listing = await this.git.run(['ls-tree', '-r', '--name-only', commit, '--', '.service/contexts'], options);
    return listing.split('\n').filter((path) => path.length > 0);
  }

  /**
   * Brings the sandbox's tree back and stages it against the prepared commit: null when nothing
   * changed (nothing is left behind), else the staged change (release it when done).
   */
  async collect(prepared: PreparedTree, sandbox: Sandbox): Promise<StagedChange | null> {
    await this.ready();
    const repo = prepared.source.repo;
    // The first collect takes the scratch repository prepare made; a later one makes its own.
    const early = this.earlyScratches.get(prepared);
    this.earlyScratches.delete(prepared);
    const scratch = early?.scratch ?? this.newScratch(repo);
    this.track(prepared, scratch);
    let files: ChangedFile[];
    try {
      await (early?.created ?? scratch.create(this.mirrors.pathFor(repo), prepared.commit));
      // A backend that can hands its tree over as entries: no second tar stream to encode and decode.
      await scratch.unpack(async () => sandbox.readTree?.(prepared.mark) ?? tarEntries(await sandbox.getArchive()));
      files = await scratch.stage(prepared.commit);
    } catch (error) {
      await this.removeScratch(prepared, scratch);
      throw error;
    }
    if (files.length === 0) {
      await this.removeScratch(prepared, scratch);
      return null;
    }
    const state: ChangeState = { scratch, commitSha: null };
    const change: StagedChange = {
      prepared,
      files,
      get commitSha() {
        return state.commitSha;
      },
      addedLines: (): AsyncGenerator<FileAdditions> => scratch.addedLines(prepared.commit),
    };
    this.changes.set(change, state);
    return change;
  }

  /**
   * What the staged change holds at exactly `paths` (mode and bytes), read on the server from
   * the collected tree: nothing is read back from the sandbox, and a link stays a link.
   */
  async stagedFiles(change: StagedChange, paths: readonly string[]): Promise<StagedFile[]> {
    return this.stateOf(change).scratch.stagedFiles(paths);
  }

  /** Commits the staged change on top of the prepared commit (committer = author); answers the sha. */
  async commit(change: StagedChange, details: CommitDetails): Promise<string> {
    const state = this.stateOf(change);
    state.commitSha = await state.scratch.commit(change.prepared.commit, details);
    return state.commitSha;
  }

  /**
   * Pushes the commit to the work branch, never forced: when the remote has the branch its tip
   * must be the commit's parent (the run resumed from it), when it had none it must still have
   * none; otherwise `diverged`. Then records the branch in the mirror, so the next run resumes
   * from it: that goes on after this resolves, and releasing the change waits for it.
   */
  async push(change: StagedChange): Promise<void> {
    const state = this.stateOf(change);
    const sha = state.commitSha;
    if (!sha) throw new Error('push() before commit(): nothing to push');
    const { source, resumed, commit } = change.prepared;
    await state.scratch.push(cloneUrlOf(source.repo), source.credential, sha, source.workBranch, resumed ? commit : null);
    // Behind the pull request, not before it (the scratch is removed only once it is done). A
    // failure here costs nothing but a fetch: the next sync brings the branch anyway.
    state.scratch.leaveBehind(this.mirrors.withMirror(source.repo, (mirror) => state.scratch.pushToMirror(mirror, sha, source.workBranch)));
  }

  /**
   * Removes the scratch repositories of a change, or of every change collected for a prepared
   * tree. Safe twice. `behind`: resolve at once and remove them behind the caller (a run's end
   * does not wait for the mirror to record the pushed branch, which reads them); `settled()`
   * waits for such removals.
   */
  async release(target: StagedChange | PreparedTree, options: { behind?: boolean } = {}): Promise<void> {
    if (!options.behind) return this.removeScratches(target);
    const removal: Promise<void> = this.removeScratches(target)
      .catch(() => undefined) // nobody waits to be told: the next start removes what is left of it
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  /** Resolves once every removal `release(…, { behind: true })` started so far has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.removals]);
  }

  private async removeScratches(target: StagedChange | PreparedTree): Promise<void> {
    if ('files' in target) {
      const state = this.changes.get(target);
      if (state) await this.removeScratch(target.prepared, state.scratch);
      return;
    }
    for (const scratch of [...(this.scratches.get(target) ?? [])]) await this.removeScratch(target, scratch);
  }

  private get home(): string {
    return join(this.options.dataDir, 'git-home');
  }

  /** git's HOME must exist (and stays empty). */
  private ready(): Promise<unknown> {
    this.homeReady ??= mkdir(this.home, { recursive: true }).catch((error: unknown) => {
      this.homeReady = null;
      throw error;
    });
    return this.homeReady;
  }

  private stateOf(change: StagedChange): ChangeState {
    const state = this.changes.get(change);
    if (!state) throw new Error('not a change collected by these workspaces');
    return state;
  }

  private newScratch(repo: RepoConfig): ScratchRepository {
    const safe = repo.name.replace(/[^A-Za-z0-9._-]/g, '-');
    return new ScratchRepository({
      git: this.git,
      repository: repo.name,
      dir: join(this.options.dataDir, 'workspaces', `${safe}-${randomUUID()}`),
      localTimeoutMs: this.localTimeoutMs,
      networkTimeoutMs: this.networkTimeoutMs,
    });
  }

  private track(prepared: PreparedTree, scratch: ScratchRepository): void {
    const set = this.scratches.get(prepared) ?? new Set();
    set.add(scratch);
    this.scratches.set(prepared, set);
  }

  private async removeScratch(prepared: PreparedTree, scratch: ScratchRepository): Promise<void> {
    this.scratches.get(prepared)?.delete(scratch);
    const early = this.earlyScratches.get(prepared);
    if (early?.scratch === scratch) {
      // Released before any collect: let its git commands end before its directory goes.
      this.earlyScratches.delete(prepared);
      await early.created.catch(() => undefined);
    }
    await scratch.remove();
  }
}
