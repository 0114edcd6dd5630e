import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepoConfig } from '../../src/config/service-config.js';
import { Platform } from '../../src/platforms/platform.js';
import type { GitCredential } from '../../src/workspaces/git/git-credential.js';
import { RepositoryWorkspaces, type RepositoryWorkspacesOptions } from '../../src/workspaces/git/repository-workspaces.js';
import type { WorkspaceSource } from '../../src/workspaces/git/workspace-types.js';
import { workBranchName } from '../../src/workspaces/work-branch.js';
import { DirectorySandbox } from '../support/directory-sandbox.js';
import { GitHttpBackend, GitServer } from '../stand-ins/git-http-backend.js';
import { createBareRepository, type FileSpec } from '../stand-ins/git-repositories.js';

export const TOKEN = 'ghp_WorkspaceToken1234567890';
export const CREDENTIAL: GitCredential = { username: 'x-access-token', password: TOKEN };

/** A remote repository served over smart HTTP, a data directory and workspaces on it. */
export class WorkspaceFixture {
  readonly root = mkdtempSync(join(tmpdir(), 'workspaces-test-'));
  readonly bare = join(this.root, 'remote', 'shop-web.git');
  readonly dataDir = join(this.root, 'data');
  readonly backend = new GitHttpBackend({ repository: this.bare, credential: { username: 'x-access-token', password: TOKEN } });
  readonly server = new GitServer().mount('/acme/shop-web', this.backend);
  readonly sandboxes: DirectorySandbox[] = [];
  workspaces!: RepositoryWorkspaces;
  initialCommit = '';

  async start(files?: Record<string, FileSpec>, options: Partial<RepositoryWorkspacesOptions> = {}): Promise<this> {
    this.initialCommit = createBareRepository(this.bare, { defaultBranch: 'main', files });
    await this.server.start();
    this.workspaces = new RepositoryWorkspaces({ dataDir: this.dataDir, ...options });
    return this;
  }

  repo(overrides: Partial<RepoConfig> = {}): RepoConfig {
    return { name: 'shop-web', platform: Platform.GitHub, url: `${this.server.url}/acme/shop-web`, api_url: null, path_prefix: '', auth_secret: TOKEN, branch: null, ...overrides };
  }

  source(ticket = '42', overrides: Partial<WorkspaceSource> = {}): WorkspaceSource {
    return { repo: this.repo(), credential: CREDENTIAL, workBranch: workBranchName(ticket), baseBranch: 'main', ...overrides };
  }

  async sandbox(): Promise<DirectorySandbox> {
    const sandbox = await DirectorySandbox.create();
    this.sandboxes.push(sandbox);
    return sandbox;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    for (const sandbox of this.sandboxes) await sandbox.destroy();
    rmSync(this.root, { recursive: true, force: true });
  }
}
