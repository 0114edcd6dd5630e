import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitHttpBackend, GitServer } from '../stand-ins/git-http-backend.js';
import { type FileSpec, createBareRepository } from '../stand-ins/git-repositories.js';

/** The token every repository of a GitRemotes server accepts (any user name). */
export const TEST_REPOSITORY_TOKEN = 'test-repository-token-7f3a9c';

export interface ServedRepository {
  /** Clone URL (also the repository's `url` in configuration). */
  url: string;
  /** The bare repository on disk (read it with the git-repositories helpers). */
  bare: string;
  backend: GitHttpBackend;
}

/**
 * Real git remotes for tests whose projects declare repositories: bare repositories served over
 * smart HTTP behind Basic authentication (TEST_REPOSITORY_TOKEN), each with a first commit on
 * `main`. `entry()` gives the repository's configuration entry (url, auth_secret, branch main).
 */
export class GitRemotes {
  readonly root = mkdtempSync(join(tmpdir(), 'git-remotes-'));
  private readonly server = new GitServer();
  private readonly served = new Map<string, ServedRepository>();

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  /** Serves a new repository at `path` (e.g. `/acme/shop-web`). */
  add(path: string, files?: Record<string, FileSpec>): ServedRepository {
    const bare = join(this.root, `${path.replace(/[^A-Za-z0-9._-]+/g, '_')}.git`);
    createBareRepository(bare, { defaultBranch: 'main', files });
    const backend = new GitHttpBackend({ repository: bare, credential: { username: null, password: TEST_REPOSITORY_TOKEN } });
    this.server.mount(path, backend);
    const served = { url: `${this.server.url}${path}`, bare, backend };
    this.served.set(path, served);
    return served;
  }

  /** A `repos:` entry for a repository served at `/acme/<name>` (added on first use). */
  entry(name: string, platform = 'platform-a', extra: Record<string, unknown> = {}): Record<string, unknown> {
    const path = `/acme/${name}`;
    const served = this.served.get(path) ?? this.add(path);
    return { name, platform, url: served.url, auth_secret: TEST_REPOSITORY_TOKEN, branch: 'main', ...extra };
  }

  get(path: string): ServedRepository | undefined {
    return this.served.get(path);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}
