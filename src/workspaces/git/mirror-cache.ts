import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepoConfig } from '../../config/service-config.js';
import { type GitCli, GitCommandFailure } from './git-command.js';
import type { GitCredential } from './git-credential.js';
import { workspaceErrorFrom } from './git-failure.js';
import { MirrorLocks } from './mirror-lock.js';
import { cloneUrlOf } from './repository-url.js';
import { WorkspaceError, WorkspaceErrorKind } from './workspace-error.js';

/** Branch name (without `refs/heads/`) → commit sha, as the remote had them at the last sync. */
export type HeadRefs = ReadonlyMap<string, string>;

export interface MirrorCacheOptions {
  dataDir: string;
  git: GitCli;
  /** Time limit of each network operation (fetch). */
  networkTimeoutMs: number;
  /** Time limit of each local operation. */
  localTimeoutMs: number;
  /** How long a sync waits for another process's sync of the same mirror. */
  lockWaitMs: number;
}

/**
 * Configuration of every operation in a mirror. Scratch clones borrow the mirror's objects
 * (alternates), so gc must never delete one: unreachable objects go to a cruft pack and stay;
 * gc runs in the foreground, under the mirror's lock, never as a detached process.
 */
export const MIRROR_CONFIG: Readonly<Record<string, string>> = {
  'gc.pruneExpire': 'never',
  'gc.cruftPacks': 'true',
  'gc.autoDetach': 'false',
  'core.logAllRefUpdates': 'false',
};

/**
 * Export attributes are meant for release tarballs; a sandbox must get the commit's tree as it is
 * (`git archive --worktree-attributes` already ignores the tree's own attributes; this file,
 * which takes precedence over any other, makes it explicit).
 */
const ARCHIVE_ATTRIBUTES = '* -export-ignore -export-subst\n';

/**
 * One bare mirror per repository under `<dataDir>/git-mirrors/`, fetched by URL (no remote is
 * stored, so no credential can end up in its config). Syncs of one mirror are serialized in this
 * process and across processes sharing the data directory (MirrorLocks).
 */
export class MirrorCache {
  private readonly root: string;
  private readonly locks: MirrorLocks;

  constructor(private readonly options: MirrorCacheOptions) {
    this.root = join(options.dataDir, 'git-mirrors');
    this.locks = new MirrorLocks({ waitMs: options.lockWaitMs, staleMs: Math.max(60_000, options.networkTimeoutMs / 4) });
  }

  /** `<dataDir>/git-mirrors/<safe-name>-<short hash of url>.git`: two repositories never share one, renaming a url starts afresh. */
  pathFor(repo: RepoConfig): string {
    const safe = repo.name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^\.+/, '_');
    const hash = createHash('sha256').update(repo.url).digest('hex').slice(0, 12);
    return join(this.root, `${safe}-${hash}.git`);
  }

  /**
   * Brings the mirror up to date with the remote (creating it on first use) and answers its
   * branches. A mirror that fails locally (corrupt, half-written) is removed and made again, once.
   */
  async sync(repo: RepoConfig, credential: GitCredential): Promise<HeadRefs> {
    const url = cloneUrlOf(repo);
    const path = this.pathFor(repo);
    await mkdir(this.root, { recursive: true });
    return this.locks.withLock(`${path}.lock`, async () => {
      if (!(await exists(path))) await this.create(repo, url, path, credential);
      else {
        try {
          await this.fetch(repo, url, path, credential);
        } catch (error) {
          if (!(error instanceof WorkspaceError) || error.kind !== WorkspaceErrorKind.Failed) throw error;
          // We hold the mirror's lock, so git lock files inside it were left by a killed git: clear them and try again.
          if (await removeGitLocks(path)) {
            try {
              await this.fetch(repo, url, path, credential);
              return this.heads(repo, path);
            } catch (again) {
              if (!(again instanceof WorkspaceError) || again.kind !== WorkspaceErrorKind.Failed) throw again;
            }
          }
          await this.create(repo, url, path, credential, { replacing: true });
        }
      }
      return this.heads(repo, path);
    });
  }

  /**
   * Fetches one ref that is not a branch (a pull request's `refs/pull/N/head`, a fork's head kept
   * by the base repository) into the mirror under `refs/service/fetched/…` and answers its commit.
   * The mirror must exist (sync first).
   */
  async fetchRef(repo: RepoConfig, credential: GitCredential, ref: string): Promise<string> {
    const url = cloneUrlOf(repo);
    const path = this.pathFor(repo);
    const local = `refs/service/fetched/${ref.replace(/^refs\//, '').replace(/[^A-Za-z0-9._/-]/g, '-')}`;
    return this.locks.withLock(`${path}.lock`, async () => {
      await this.git(repo, `fetching ${ref}`, ['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', url, `+${ref}:${local}`], { GIT_DIR: path },
        { credential, credentialUrl: url, timeoutMs: this.options.networkTimeoutMs });
      return (await this.git(repo, `reading ${ref}`, ['rev-parse', '--verify', `${local}^{commit}`], { GIT_DIR: path })).trim();
    });
  }

  /** Runs `work` holding the mirror's lock (to write into it, e.g. a branch just pushed). */
  withMirror<T>(repo: RepoConfig, work: (path: string) => Promise<T>): Promise<T> {
    const path = this.pathFor(repo);
    return this.locks.withLock(`${path}.lock`, () => work(path));
  }

  /** Made in a temporary directory and renamed into place, so a half-made mirror is never used. */
  private async create(repo: RepoConfig, url: string, path: string, credential: GitCredential, options: { replacing?: boolean } = {}): Promise<void> {
    const fresh = `${path}.new-${randomUUID().slice(0, 8)}`;
    const aside = `${path}.old-${randomUUID().slice(0, 8)}`;
    try {
      await this.git(repo, 'creating the mirror', ['init', '--bare', '--quiet', '--template=', fresh], {});
      await mkdir(join(fresh, 'info'), { recursive: true });
      await writeFile(join(fresh, 'info', 'attributes'), ARCHIVE_ATTRIBUTES);
      await this.fetch(repo, url, fresh, credential);
      // Replacing a broken mirror: the new one is complete before the old one leaves, so runs
      // whose scratch checkouts borrow its objects (by path) find a mirror there all along.
      if (options.replacing) await rename(path, aside);
      await rename(fresh, path);
    } finally {
      await rm(fresh, { recursive: true, force: true });
      if (options.replacing) await rm(aside, { recursive: true, force: true });
    }
  }

  private async fetch(repo: RepoConfig, url: string, path: string, credential: GitCredential): Promise<void> {
    await this.git(
      repo,
      'fetching',
      ['fetch', '--prune', '--no-tags', '--no-write-fetch-head', '--quiet', url, '+refs/heads/*:refs/heads/*'],
      { GIT_DIR: path },
      { credential, credentialUrl: url, timeoutMs: this.options.networkTimeoutMs },
    );
  }

  private async heads(repo: RepoConfig, path: string): Promise<HeadRefs> {
    const out = await this.git(repo, 'reading branches', ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'], { GIT_DIR: path });
    const heads = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [sha, ref] = line.split(' ');
      if (sha && ref?.startsWith('refs/heads/')) heads.set(ref.slice('refs/heads/'.length), sha);
    }
    return heads;
  }

  private async git(
    repo: RepoConfig,
    action: string,
    args: string[],
    variables: Record<string, string>,
    network?: { credential: GitCredential; credentialUrl: string; timeoutMs: number },
  ): Promise<string> {
    try {
      return await this.options.git.run(args, { variables, config: MIRROR_CONFIG, timeoutMs: this.options.localTimeoutMs, ...network });
    } catch (error) {
      if (error instanceof GitCommandFailure) throw workspaceErrorFrom(error, { repository: repo.name, action, credential: network?.credential });
      throw error;
    }
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/** Removes git's own `*.lock` files in a bare repository (refs, packed-refs, config, index); answers whether there were any. */
async function removeGitLocks(repository: string): Promise<boolean> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'objects') await walk(full);
      else if (entry.isFile() && entry.name.endsWith('.lock')) found.push(full);
    }
  };
  await walk(repository);
  await Promise.all(found.map((file) => rm(file, { force: true })));
  return found.length > 0;
}
