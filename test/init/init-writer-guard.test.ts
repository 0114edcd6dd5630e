import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoConfig } from '../../src/config/service-config.js';
import { writeSandboxFiles } from '../../src/pipelines/contexts/sandbox-files.js';
import type { ContextWriter } from '../../src/pipelines/init/context-writer.js';
import { ProjectInitializer } from '../../src/pipelines/init/project-initializer.js';
import { Platform } from '../../src/platforms/platform.js';
import type { PullRequestDraft, PullRequestHost, PullRequestRef } from '../../src/platforms/pull-request-host.js';
import { InProcessBackend } from '../../src/sandbox/in-process.backend.js';
import { RepositoryWorkspaces } from '../../src/workspaces/git/repository-workspaces.js';
import { branchTip, git, treeOf } from '../stand-ins/git-repositories.js';
import { GitRemotes, TEST_REPOSITORY_TOKEN } from '../support/git-remotes.js';

/**
 * What initialisation refuses whatever the context writer does (the agent writer included): a
 * missing file, a secret; nothing reaches the remote. And what it drops instead of refusing (issue
 * 24): a change to an existing file, a link where a missing file belongs; the rest is proposed.
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

/** Opens every pull request asked for, and keeps them (the host's API is not what this file tests). */
class RecordingHost implements PullRequestHost {
  readonly platform = Platform.GitHub;
  readonly opened: PullRequestDraft[] = [];
  defaultBranch = () => Promise.reject(new Error('the host was asked for the default branch'));
  findOpen = async () => null;
  create = async (draft: PullRequestDraft) => {
    this.opened.push(draft);
    const pullRequest: PullRequestRef = { ...draft, number: this.opened.length, url: `https://host.test/pull/${this.opened.length}`, state: 'open' };
    return { pullRequest, created: true };
  };
  update = () => Promise.reject(new Error('the host was asked to update a pull request'));
}

let remotes: GitRemotes;
let dataDir: string;
let repo: RepoConfig;

beforeAll(async () => {
  remotes = await new GitRemotes().start();
  remotes.add('/acme/guarded', { 'README.md': '# guarded\n', [OWN]: 'Ours.\n' });
  remotes.add('/acme/overstepped', { 'README.md': '# overstepped\n', [OWN]: 'Ours.\n' });
  remotes.add('/acme/linked', { 'README.md': '# linked\n', [OWN]: 'Ours.\n' });
  const entry = remotes.entry('guarded');
  repo = { name: 'guarded', platform: Platform.GitHub, url: entry.url as string, api_url: null, path_prefix: '', auth_secret: TEST_REPOSITORY_TOKEN, branch: 'main' };
  dataDir = mkdtempSync(join(tmpdir(), 'init-guard-'));
});

afterAll(async () => {
  await remotes?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function initWith(writer: ContextWriter, on: RepoConfig = repo, host: PullRequestHost = unreachableHost) {
  const initializer = new ProjectInitializer({
    git: new RepositoryWorkspaces({ dataDir }),
    backend: new InProcessBackend('/usr/local/bin:/usr/bin:/bin'),
    hostFor: () => host,
    writer,
    identity: { author_name: 'Bot', author_email: 'bot@example.test' },
    secrets: [TEST_REPOSITORY_TOKEN],
  });
  const [result] = await initializer.initialise({ name: 'p', repos: [on] } as never);
  return result!;
}

const repoNamed = (name: string): RepoConfig => ({ ...repo, name, url: remotes.entry(name).url as string });
const blobOf = (bare: string, ref: string, path: string) => git(['rev-parse', `${ref}:${path}`], { cwd: bare });

const writer = (write: ContextWriter['write']): ContextWriter => ({ kind: 'test', write });

describe('initialisation drops what a writer should not change, and proposes the rest', () => {
  it('a writer that overwrites an existing file: its own file is proposed, the existing one stays byte for byte', async () => {
    const host = new RecordingHost();
    const result = await initWith(writer(async ({ sandbox }) => {
      await writeSandboxFiles(sandbox, [{ path: '.service/contexts/default/context.yaml', content: 'name: default\n' }, { path: OWN, content: 'Replaced.\n' }]);
      return { files: [], how: 'By the test.' };
    }), repoNamed('overstepped'), host);
    expect(result).toMatchObject({ status: 'opened', files: ['.service/contexts/default/context.yaml'], discarded: [`${OWN} (modified)`] });
    const bare = remotes.get('/acme/overstepped')!.bare;
    expect(git(['diff', '--name-status', 'main', 'service/init'], { cwd: bare })).toBe('A\t.service/contexts/default/context.yaml');
    expect(git(['show', 'service/init:.service/contexts/default/context.yaml'], { cwd: bare })).toBe('name: default');
    expect(blobOf(bare, 'service/init', OWN)).toBe(blobOf(bare, 'main', OWN));
    expect(host.opened).toHaveLength(1);
    expect(host.opened[0]!.body).toContain(`**Discarded.** The test writer also changed \`${OWN}\` (modified); those changes were dropped`);
  });

  it('a writer that makes a missing file a link out of the tree: the link is dropped, never followed, and the template writes the file', async () => {
    const host = new RecordingHost();
    const result = await initWith(writer(async ({ sandbox }) => {
      await sandbox.exec('mkdir -p .service/contexts/default && ln -s /etc/hostname .service/contexts/default/context.yaml', { timeoutMs: 10_000, onLine: () => undefined });
      return { files: [], how: 'By the test.' };
    }), repoNamed('linked'), host);
    expect(result).toMatchObject({ status: 'opened', files: ['.service/contexts/default/context.yaml'], discarded: ['.service/contexts/default/context.yaml (added)'] });
    const bare = remotes.get('/acme/linked')!.bare;
    expect(treeOf(bare, 'service/init').get('.service/contexts/default/context.yaml')).toBe('100644 blob');
    expect(git(['show', 'service/init:.service/contexts/default/context.yaml'], { cwd: bare })).toContain('name: default');
    expect(host.opened[0]!.body).toContain('`.service/contexts/default/context.yaml` from the template instead');
  });
});

describe('initialisation refuses what a writer should not do', () => {
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
