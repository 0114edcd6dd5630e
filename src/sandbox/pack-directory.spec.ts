import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTar } from '../../test/support/tar-archives.js';
import { packDirectory } from './pack-directory.js';
import { unpackInto } from './unpack-into.js';

let dir: string;
let outside: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pack-directory-'));
  outside = mkdtempSync(join(tmpdir(), 'pack-outside-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function write(path: string, content: string | Buffer, mode = 0o644): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), content);
  chmodSync(join(dir, path), mode);
}

describe('packDirectory', () => {
  it('lets the event loop run while it walks a large tree', async () => {
    // The walk reads synchronously in slices; between them timers and other requests get their turn.
    for (let i = 0; i < 3000; i += 1) write(`d${i % 30}/f${i}.txt`, 'x'.repeat(2000));
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const entries = await readTar(packDirectory(dir));
    ticking = false;
    expect(entries.filter((e) => e.type === 'file')).toHaveLength(3000);
    expect(turns).toBeGreaterThan(1);
  });

  it('emits the whole tree in sorted order, a directory before its contents, links unfollowed', async () => {
    write('src/main.ts', 'main');
    write('src/a.ts', 'a');
    write('a.txt', 'top');
    write('bin/run.sh', '#!/bin/sh\n', 0o755);
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.env', 'A=1');
    writeFileSync(join(outside, 'secret'), 'outside');
    symlinkSync(outside, join(dir, 'elsewhere'));
    symlinkSync('src/main.ts', join(dir, 'main-link'));

    const entries = await readTar(packDirectory(dir));

    expect(entries.map((e) => e.name)).toEqual([
      '.env', '.git/', '.git/HEAD', 'a.txt', 'bin/', 'bin/run.sh', 'elsewhere', 'main-link', 'src/', 'src/a.ts', 'src/main.ts',
    ]);
    const byName = new Map(entries.map((e) => [e.name, e]));
    expect(byName.get('bin/run.sh')).toMatchObject({ type: 'file', mode: 0o755, size: 10, content: '#!/bin/sh\n' });
    expect(byName.get('a.txt')).toMatchObject({ type: 'file', mode: 0o644, size: 3, content: 'top' });
    expect(byName.get('src/')).toMatchObject({ type: 'directory' });
    expect(byName.get('elsewhere')).toMatchObject({ type: 'symlink', linkname: outside, size: 0 });
    expect(byName.get('main-link')).toMatchObject({ type: 'symlink', linkname: 'src/main.ts' });
  });

  it('streams a large file whole, and an empty directory gives an empty archive', async () => {
    const large = Buffer.alloc(3 * 1024 * 1024 + 7, 'x');
    write('large.bin', large);
    const [entry] = await readTar(packDirectory(dir));
    expect(entry).toMatchObject({ name: 'large.bin', size: large.length });
    expect(entry!.content).toBe(large.toString());

    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(await readTar(packDirectory(empty))).toEqual([]);
  });

  it('round-trips through unpackInto', async () => {
    write('nested/deeper/file.txt', 'deep');
    write('tool', 'run me', 0o755);
    symlinkSync('nested', join(dir, 'shortcut'));
    const copy = join(outside, 'copy');
    mkdirSync(copy);

    await unpackInto(copy, packDirectory(dir));

    expect(readFileSync(join(copy, 'nested/deeper/file.txt'), 'utf8')).toBe('deep');
    expect(statSync(join(copy, 'tool')).mode & 0o777).toBe(0o755);
    expect(readlinkSync(join(copy, 'shortcut'))).toBe('nested');
  });

  it('reports a failing walk as an error of the stream', async () => {
    await expect(readTar(packDirectory(join(dir, 'missing')))).rejects.toThrow(/ENOENT.*missing/);
  });

  it('stops the walk quietly when the reader destroys the stream midway', async () => {
    for (let i = 0; i < 50; i += 1) write(`f${String(i).padStart(2, '0')}`, Buffer.alloc(100_000, i));
    const archive = packDirectory(dir);
    let read = 0;
    for await (const chunk of archive) {
      read += (chunk as Buffer).length;
      if (read > 200_000) break; // leaving the loop destroys the stream
    }
    expect(archive.destroyed).toBe(true);
    // Time for the abandoned walk to wind down: a rejection it let loose would fail this file.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});
