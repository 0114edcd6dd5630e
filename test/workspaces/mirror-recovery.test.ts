import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { WorkspaceFixture } from './workspace-fixture.js';

describe('a mirror left with a stale git lock by a killed git', () => {
  let fx: WorkspaceFixture;
  beforeEach(async () => {
    fx = await new WorkspaceFixture().start();
  });
  afterEach(() => fx.stop());

  it('is repaired in place (the lock cleared, the fetch retried) without being rebuilt under a run that borrows it', async () => {
    const first = await fx.workspaces.prepare(fx.source('1'), await fx.sandbox());
    const [name] = readdirSync(join(fx.dataDir, 'git-mirrors')).filter((n) => n.endsWith('.git'));
    const mirror = join(fx.dataDir, 'git-mirrors', name!);
    const marker = join(mirror, 'kept-marker');
    writeFileSync(marker, 'this mirror was not rebuilt\n');
    writeFileSync(join(mirror, 'refs', 'heads', 'main.lock'), '');
    const tip = commitFiles(fx.bare, 'main', { 'later.txt': 'moved on\n' });
    const second = await fx.workspaces.prepare(fx.source('2'), await fx.sandbox());
    expect(second.commit).toBe(tip);
    expect(second.commit).not.toBe(first.commit);
    expect(existsSync(marker)).toBe(true);
    expect(existsSync(join(mirror, 'refs', 'heads', 'main.lock'))).toBe(false);
  });
});
