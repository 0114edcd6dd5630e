import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RepoConfig } from '../../src/config/service-config.js';
import { Platform } from '../../src/platforms/platform.js';
import { gitCredentialFor } from '../../src/workspaces/git/git-credential.js';
import { RepositoryWorkspaces } from '../../src/workspaces/git/repository-workspaces.js';
import { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';
import type { StandInServer } from '../stand-ins/stand-in-server.js';
import { branchTip, createBareRepository } from '../stand-ins/git-repositories.js';
import { DirectorySandbox } from '../support/directory-sandbox.js';

const TOKEN = 'host-token-0123456789';

/** Each host's stand-in, serving a repository at its real path with its real git credential rule. */
const HOSTS = [
  {
    platform: Platform.GitHub,
    make: () => new GitHubStandIn(TOKEN),
    path: '/acme/shop-web',
    credential: { username: 'x-access-token', password: TOKEN },
  },
  {
    platform: Platform.GitLab,
    make: () => new GitLabStandIn(TOKEN),
    path: '/fin/billing',
    credential: { username: 'oauth2', password: TOKEN },
  },
  {
    platform: Platform.AzureDevOps,
    make: () => new AzureDevOpsStandIn(TOKEN),
    path: '/acme/Shop/_git/shop-web',
    credential: { username: null, password: TOKEN },
  },
] as const;

describe.each(HOSTS)('git through the $platform stand-in', (host) => {
  let root: string;
  let standIn: StandInServer;
  let bare: string;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'stand-in-git-'));
    bare = join(root, 'remote.git');
    createBareRepository(bare);
    standIn = await host.make().start();
    standIn.mountGit(host.path, { repository: bare, credential: host.credential });
  });
  afterEach(async () => {
    await standIn.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const repo = (secret: string): RepoConfig => ({ name: 'shop', platform: host.platform, url: `${standIn.url}${host.path}`, api_url: null, path_prefix: '', auth_secret: secret, branch: null });

  it("clones and pushes with the service's credential for the host", async () => {
    const workspaces = new RepositoryWorkspaces({ dataDir: join(root, 'data') });
    const sandbox = await DirectorySandbox.create();
    try {
      const source = { repo: repo(TOKEN), credential: gitCredentialFor(repo(TOKEN))!, workBranch: 'service/7', baseBranch: 'main' };
      const prepared = await workspaces.prepare(source, sandbox);
      writeFileSync(join(sandbox.dir, 'README.md'), 'changed\n');
      const change = await workspaces.collect(prepared, sandbox);
      const sha = await workspaces.commit(change!, { message: 'x', authorName: 'svc', authorEmail: 'svc@example.test' });
      await workspaces.push(change!);
      expect(branchTip(bare, 'service/7')).toBe(sha);
      expect(standIn.requests.some((r) => r.path.endsWith('/git-receive-pack'))).toBe(true);
    } finally {
      await sandbox.destroy();
    }
  });

  it('refuses a wrong token with 401 and a Basic challenge', async () => {
    const response = await fetch(`${standIn.url}${host.path}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`${host.credential.username ?? 'anyone'}:wrong`).toString('base64')}` },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });
});
