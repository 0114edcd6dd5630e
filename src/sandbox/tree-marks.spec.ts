import { lstatSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { treePaths } from './pack-directory.js';
import { identityOf, TreeMarks } from './tree-marks.js';

describe('TreeMarks', () => {
  let root = '';
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tree-marks-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const stats = (path: string) => lstatSync(join(root, path));
  /** The file's change time, in ms, as the kernel stamped it. */
  const changedAt = (path: string) => stats(path).ctimeMs;

  it('does not vouch for a file changed within 20 ms of the mark (a later write could keep every time)', async () => {
    writeFileSync(join(root, 'a.txt'), 'a\n');
    const marks = new TreeMarks();
    const close = await marks.note(root, treePaths(root), changedAt('a.txt') + 5);
    expect(marks.unchangedSince(close, root, 'a.txt')).toBeNull();
    const later = await marks.note(root, treePaths(root), changedAt('a.txt') + 25);
    expect(marks.unchangedSince(later, root, 'a.txt')?.ino).toBe(stats('a.txt').ino);
  });

  it('notes what a writer saw of its files as the look at the tree would, within the same 20 ms', async () => {
    writeFileSync(join(root, 'a.txt'), 'a\n');
    writeFileSync(join(root, 'b.txt'), 'b\n');
    const written = new Map([['a.txt', identityOf(stats('a.txt'))], ['b.txt', identityOf(stats('b.txt'))]]);
    const marks = new TreeMarks();
    expect(marks.unchangedSince(marks.noteWritten(written, changedAt('a.txt') + 5), root, 'a.txt')).toBeNull();
    const mark = marks.noteWritten(written, Math.max(changedAt('a.txt'), changedAt('b.txt')) + 25);
    expect(marks.unchangedSince(mark, root, 'a.txt')?.ino).toBe(stats('a.txt').ino);
    await sleep(30);
    writeFileSync(join(root, 'b.txt'), 'B\n');
    expect(marks.unchangedSince(mark, root, 'b.txt')).toBeNull();
    expect(marks.unchangedSince(mark, root, 'a.txt')).not.toBeNull();
  });

  it('vouches for nothing after a write, for paths never noted, or for a mark taken elsewhere', async () => {
    writeFileSync(join(root, 'a.txt'), 'a\n');
    const marks = new TreeMarks();
    const mark = await marks.note(root, treePaths(root), changedAt('a.txt') + 1000);
    writeFileSync(join(root, 'b.txt'), 'b\n');
    expect(marks.unchangedSince(mark, root, 'b.txt')).toBeNull();
    expect(marks.unchangedSince(await new TreeMarks().note(root, treePaths(root), Date.now() + 1000), root, 'a.txt')).toBeNull();
    expect(marks.unchangedSince(undefined, root, 'a.txt')).toBeNull();
    expect(marks.has(mark)).toBe(true);
    expect(marks.unchangedSince(mark, root, 'a.txt')?.ino).toBe(stats('a.txt').ino);
    await sleep(30); // the mark's time is made up here: a write in the same clock tick could keep every time
    writeFileSync(join(root, 'a.txt'), 'A\n');
    expect(marks.unchangedSince(mark, root, 'a.txt')).toBeNull();
  });
});
