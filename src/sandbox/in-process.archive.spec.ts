import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTar, tarOf } from '../../test/support/tar-archives.js';
import { InProcessBackend } from './in-process.backend.js';
import type { OutputStream, Sandbox } from './sandbox-backend.js';

const backend = new InProcessBackend('/usr/bin:/bin');

async function run(sandbox: Sandbox, command: string): Promise<string[]> {
  const stdout: string[] = [];
  const onLine = (stream: OutputStream, line: string) => (stream === 'stdout' ? stdout.push(line) : undefined);
  const result = await sandbox.exec(command, { timeoutMs: 5000, onLine });
  expect(result.exitCode, `${command} exits 0`).toBe(0);
  return stdout;
}

let sandbox: Sandbox;
let outside: string;

beforeEach(async () => {
  sandbox = await backend.create({ runId: 'archive-run', name: 'web', env: {} });
  outside = mkdtempSync(join(tmpdir(), 'sandbox-outside-'));
});

afterEach(async () => {
  await sandbox.destroy();
  rmSync(outside, { recursive: true, force: true });
});

describe('in-process sandbox archives', () => {
  it('takes a tree in, runs commands on it, and gives the changed tree back', async () => {
    await sandbox.putArchive(tarOf([
      { name: 'bin/', type: 'directory' },
      { name: 'bin/greet.sh', content: '#!/bin/sh\necho "hello from $(basename "$0")"\n', mode: 0o755 },
      { name: 'src/lib/util.ts', content: 'export const answer = 42;\n' },
      { name: '.gitignore', content: 'node_modules\n' },
      { name: 'util-link', type: 'symlink', linkname: 'src/lib/util.ts' },
    ]));

    expect(await run(sandbox, './bin/greet.sh')).toEqual(['hello from greet.sh']);
    expect(await run(sandbox, 'cat util-link; ls -A')).toEqual(['export const answer = 42;', '.gitignore', 'bin', 'src', 'util-link']);
    await run(sandbox, 'echo made > src/made.txt && chmod +x src/made.txt && rm .gitignore');

    const entries = await readTar(await sandbox.getArchive());
    expect(entries.map(({ name, type, mode, content, linkname }) => ({ name, type, mode, content, linkname }))).toEqual([
      { name: 'bin/', type: 'directory', mode: 0o755, content: '', linkname: null },
      { name: 'bin/greet.sh', type: 'file', mode: 0o755, content: '#!/bin/sh\necho "hello from $(basename "$0")"\n', linkname: null },
      { name: 'src/', type: 'directory', mode: 0o755, content: '', linkname: null },
      { name: 'src/lib/', type: 'directory', mode: 0o755, content: '', linkname: null },
      { name: 'src/lib/util.ts', type: 'file', mode: 0o644, content: 'export const answer = 42;\n', linkname: null },
      { name: 'src/made.txt', type: 'file', mode: 0o755, content: 'made\n', linkname: null },
      { name: 'util-link', type: 'symlink', mode: 0o777, content: '', linkname: 'src/lib/util.ts' },
    ]);
  });

  it('marks the tree from what it wrote, and hands out as marked only what no command touched since', async () => {
    await sandbox.putArchive(tarOf([
      { name: 'kept.txt', content: 'kept\n' },
      { name: 'edited.txt', content: 'before\n' },
      { name: 'replaced.txt', content: 'old\n' },
      { name: 'link', type: 'symlink', linkname: 'kept.txt' },
    ]));
    await new Promise((done) => setTimeout(done, 30)); // out of the mark's 20 ms of doubt
    const mark = await sandbox.markTree!();
    await run(sandbox, 'echo after > edited.txt && rm replaced.txt && echo new > replaced.txt && echo made > made.txt');
    const entries = [];
    for await (const entry of sandbox.readTree!(mark)) entries.push({ name: entry.name, asMarked: entry.asMarked === true });
    expect(entries).toEqual([
      { name: 'edited.txt', asMarked: false },
      { name: 'kept.txt', asMarked: true },
      { name: 'link', asMarked: false },
      { name: 'made.txt', asMarked: false },
      { name: 'replaced.txt', asMarked: false },
    ]);
  });

  describe('refuses entries that would land outside the working directory', () => {
    it('climbing out with ".."', async () => {
      await expect(sandbox.putArchive(tarOf([{ name: '../x', content: 'x' }]))).rejects.toThrow('tar entry "../x" is refused');
      expect(existsSync(join(sandbox.workdir, '..', 'x'))).toBe(false);
    });

    it('with an absolute path', async () => {
      const absolute = join(outside, 'x');
      await expect(sandbox.putArchive(tarOf([{ name: absolute, content: 'x' }]))).rejects.toThrow(`tar entry "${absolute}" is refused`);
      expect(existsSync(absolute)).toBe(false);
    });

    it('through a symbolic link to elsewhere', async () => {
      const archive = tarOf([{ name: 'evil', type: 'symlink', linkname: outside }, { name: 'evil/file', content: 'x' }]);
      await expect(sandbox.putArchive(archive)).rejects.toThrow('tar entry "evil/file" is refused: evil is a symbolic link');
      expect(existsSync(join(outside, 'file'))).toBe(false);
    });
  });

  it('gives commands a HOME apart from the working directory, kept out of the archive', async () => {
    const [home, pwd] = await run(sandbox, 'echo "$HOME"; pwd; echo "[user]" > ~/.gitconfig; mkdir -p ~/.npm && touch ~/.npm/cache; touch tracked');
    expect(home).not.toBe(pwd);
    expect(relative(pwd!, home!).startsWith('..')).toBe(true);
    expect(pwd).toBe(sandbox.workdir);
    expect((await readTar(await sandbox.getArchive())).map((e) => e.name)).toEqual(['tracked']);
  });

  it('refuses both directions once destroyed', async () => {
    await sandbox.destroy();
    const archive = tarOf([{ name: 'a', content: 'a' }]);
    await expect(sandbox.putArchive(archive)).rejects.toThrow('sandbox web is destroyed');
    expect(archive.destroyed).toBe(true);
    await expect(sandbox.getArchive()).rejects.toThrow('sandbox web is destroyed');
  });
});
