import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitCli } from './git-command.js';
import { DEFAULT_GIT_PATH } from './git-environment.js';

describe('GitCli.stream', () => {
  let home: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'git-cli-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('keeps the output of a git that exited before anyone read it', async () => {
    const git = new GitCli({ home, path: DEFAULT_GIT_PATH });
    const started = git.stream(['version'], { timeoutMs: 10_000 });
    await started.done; // git has exited and its pipe is closed: only now does the reader start
    expect(await text(started.stdout)).toMatch(/^git version /);
  });
});
