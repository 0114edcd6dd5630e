import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoConfig } from '../../src/config/service-config.js';
import { writeSandboxFiles } from '../../src/pipelines/contexts/sandbox-files.js';
import type { ContextWriter } from '../../src/pipelines/init/context-writer.js';
import { ProjectInitializer } from '../../src/pipelines/init/project-initializer.js';
import { Platform } from '../../src/platforms/platform.js';
import type { PullRequestHost } from '../../src/platforms/pull-request-host.js';
import { InProcessBackend } from '../../src/sandbox/in-process.backend.js';
import { RepositoryWorkspaces } from '../../src/workspaces/git/repository-workspaces.js';
import { branchTip } from '../stand-ins/git-repositories.js';
import { GitRemotes, TEST_REPOSITORY_TOKEN } from '../support/git-remotes.js';

/**
 * What initialisation refuses whatever the context writer does (the agent writer to come
 * included): a change to an existing file, a missing file, a secret. Nothing reaches the remote.
 */
const OWN = '.service/contexts/default/principles.md';

/** The code host is never reached when the change is refused (the base branch is configured). */
const unreachableHost: PullRequestHost = {
  platform: Platform.GitHub,
  defaultBranch: () => Promise.reject(new Error('the host was asked for the default branch')),
  findOpen: () => Promise.reject(new Error('the host was asked for a pull request')),
  create: () => Promise.reject(new Error('the host was asked to open a pull request')),
  update: () => Promise.reject(new Error('the host was asked to update a pull request')),
};

let remotes: GitRemotes;
let dataDir: string;
let repo: RepoConfig;

beforeAll(async () => {
  remotes = await new GitRemotes().start();
  remotes.add('/acme/guarded', { 'README.md': '# guarded\n', [OWN]: 'Ours.\n' });
  const entry = remotes.entry('guarded');
  repo = { name: 'guarded', platform: Platform.GitHub, url: entry.url as string, api_url: null, path_prefix: '', auth_secret: TEST_REPOSITORY_TOKEN, branch: 'main' };
  dataDir = mkdtempSync(join(tmpdir(), 'init-guard-'));
});

afterAll(async () => {
  await remotes?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function initWith(writer: ContextWriter) {
  const initializer = new ProjectInitializer({
    git: new RepositoryWorkspaces({ dataDir }),
    backend: new InProcessBackend('/usr/local/bin:/usr/bin:/bin'),
    hostFor: () => unreachableHost,
    writer,
    identity: { author_name: 'Bot', author_email: 'bot@example.test' },
    secrets: [TEST_REPOSITORY_TOKEN],
  });
  const [result] = await initializer.initialise({ name: 'p', repos: [repo] } as never);
  return result!;
}

const writer = (write: ContextWriter['write']): ContextWriter => ({ kind: 'test', write });

describe('initialisation refuses what a writer should not do', () => {
  it('a writer that overwrites an existing file', async () => {
    const result = await initWith(writer(async ({ sandbox }) => {
      await writeSandboxFiles(sandbox, [{ path: '.service/contexts/default/context.yaml', content: 'name: default\n' }, { path: OWN, content: 'Replaced.\n' }]);
      return { files: [], how: '' };
    }));
    expect(result.status).toBe('failed');
    expect(result.error).toBe(`repository guarded: the test writer changed ${OWN} (modified); initialisation only adds missing context files and never overwrites one, so nothing was pushed`);
  });

  it('a writer that leaves a file missing', async () => {
    const result = await initWith(writer(async () => ({ files: [], how: '' })));
    expect(result).toMatchObject({ status: 'failed', error: 'repository guarded: the test writer did not write .service/contexts/default/context.yaml; nothing was pushed' });
  });

  it('a writer that adds a secret', async () => {
    const result = await initWith(writer(async ({ sandbox }) => {
      await writeSandboxFiles(sandbox, [{ path: '.service/contexts/default/context.yaml', content: `setup: [echo ${TEST_REPOSITORY_TOKEN}]\n` }]);
      return { files: [], how: '' };
    }));
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/push refused: the context files add what looks like a secret in \.service\/contexts\/default\/context\.yaml line 1 \(rule configured-secret\)/);
    expect(result.error).not.toContain(TEST_REPOSITORY_TOKEN);
  });

  it('and the remote never got the branch', () => {
    expect(branchTip(remotes.get('/acme/guarded')!.bare, 'service/init')).toBeNull();
  });
});
