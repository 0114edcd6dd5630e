import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../src/workspaces/git/workspace-error.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { WorkspaceFixture } from './workspace-fixture.js';

describe('RepositoryWorkspaces.prepare against git http-backend', () => {
  let fx: WorkspaceFixture;

  beforeEach(async () => {
    fx = await new WorkspaceFixture().start({
      'README.md': '# shop\n',
      'bin/run.sh': { content: '#!/bin/sh\necho run\n', executable: true },
      'docs/link.md': { symlink: '../README.md' },
      '.gitattributes': 'private.txt export-ignore\nversion.txt export-subst\n',
      'private.txt': 'kept\n',
      'version.txt': '$Format:%H$\n',
    });
  });
  afterEach(() => fx.stop());

  it('puts the base branch tree into the sandbox when the remote has no work branch, export attributes ignored', async () => {
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source(), sandbox);
    expect(prepared).toMatchObject({ startBranch: 'main', resumed: false, commit: fx.initialCommit });
    expect(readFileSync(join(sandbox.dir, 'README.md'), 'utf8')).toBe('# shop\n');
    expect(lstatSync(join(sandbox.dir, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(sandbox.dir, 'README.md')).mode & 0o111).toBe(0);
    expect(readlinkSync(join(sandbox.dir, 'docs/link.md'))).toBe('../README.md');
    // The sandbox gets the commit's tree as it is, not a release tarball of it.
    expect(readFileSync(join(sandbox.dir, 'private.txt'), 'utf8')).toBe('kept\n');
    expect(readFileSync(join(sandbox.dir, 'version.txt'), 'utf8')).toBe('$Format:%H$\n');
  });

  it('resumes from the work branch when the remote has it', async () => {
    const tip = commitFiles(fx.bare, 'service/42', { 'README.md': '# shop, in progress\n' }, 'Earlier run', 'main');
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source('42'), sandbox);
    expect(prepared).toMatchObject({ startBranch: 'service/42', resumed: true, commit: tip });
    expect(readFileSync(join(sandbox.dir, 'README.md'), 'utf8')).toBe('# shop, in progress\n');
  });

  it('reads the image the contexts name from the mirror, the work branch first, before any sandbox exists', async () => {
    expect(await fx.workspaces.contextImage(fx.source())).toBeNull();
    commitFiles(fx.bare, 'main', {
      '.service/contexts/web/context.yaml': 'name: web\nimage: node:24-bookworm\n',
      '.service/contexts/api/context.yaml': 'name: api\npath: api\n',
      '.service/contexts/broken/context.yaml': 'image: [unclosed\n',
    }, 'Contexts');
    expect(await fx.workspaces.contextImage(fx.source())).toBe('node:24-bookworm');
    commitFiles(fx.bare, 'service/7', { '.service/contexts/api/context.yaml': 'name: api\nimage: python:3.13-slim\n' }, 'On the branch', 'main');
    expect(await fx.workspaces.contextImage(fx.source('7'))).toBe('python:3.13-slim');
  });

  it('answers not-found naming the branch and the repository when the base branch is missing', async () => {
    const error = await fx.workspaces.prepare(fx.source('42', { baseBranch: 'develop' }), await fx.sandbox()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error).toMatchObject({ kind: 'not-found' });
    expect((error as Error).message).toContain('"develop"');
    expect((error as Error).message).toContain('shop-web');
  });

  it('serves a second prepare from the mirror: a refs advertisement and no pack', async () => {
    await fx.workspaces.prepare(fx.source(), await fx.sandbox());
    const cold = fx.backend.posts('git-upload-pack');
    const coldBytes = cold.reduce((sum, r) => sum + r.responseBytes, 0);
    fx.backend.clear();
    const sandbox = await fx.sandbox();
    await fx.workspaces.prepare(fx.source(), sandbox);
    const warm = fx.backend.requests;
    // GET info/refs, then protocol v2's ls-refs; no fetch command since nothing changed.
    expect(warm.filter((r) => r.endpoint === '/info/refs')).toHaveLength(1);
    expect(fx.backend.posts('git-upload-pack')).toHaveLength(1);
    const warmBytes = fx.backend.posts('git-upload-pack').reduce((sum, r) => sum + r.responseBytes, 0);
    expect(warmBytes).toBeLessThan(coldBytes);
    expect(readFileSync(join(sandbox.dir, 'README.md'), 'utf8')).toBe('# shop\n');
  });

  it('fetches what changed on the remote since the last sync', async () => {
    await fx.workspaces.prepare(fx.source(), await fx.sandbox());
    const next = commitFiles(fx.bare, 'main', { 'README.md': '# shop v2\n' });
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source(), sandbox);
    expect(prepared.commit).toBe(next);
    expect(readFileSync(join(sandbox.dir, 'README.md'), 'utf8')).toBe('# shop v2\n');
  });

  it('recreates a corrupt mirror once and carries on', async () => {
    await fx.workspaces.prepare(fx.source(), await fx.sandbox());
    const mirror = join(fx.dataDir, 'git-mirrors', readdirSync(join(fx.dataDir, 'git-mirrors')).find((name) => name.endsWith('.git'))!);
    writeFileSync(join(mirror, 'HEAD'), 'garbage\n');
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source(), sandbox);
    expect(prepared.commit).toBe(fx.initialCommit);
    expect(readFileSync(join(sandbox.dir, 'README.md'), 'utf8')).toBe('# shop\n');
    expect(readFileSync(join(mirror, 'HEAD'), 'utf8')).toMatch(/^ref: refs\/heads\//);
  });
});
