import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removalsBehind, removeTree, removeTreeBehind } from './remove-tree.js';

describe('removeTree', () => {
  let outside: string;
  const path = process.env.PATH;

  beforeEach(() => {
    outside = mkdtempSync(join(tmpdir(), 'remove-tree-'));
  });
  afterEach(() => {
    process.env.PATH = path;
    rmSync(outside, { recursive: true, force: true });
  });

  function tree(): string {
    const root = join(outside, 'tree');
    mkdirSync(join(root, 'a/b'), { recursive: true });
    writeFileSync(join(root, 'a/b/file.txt'), 'x');
    writeFileSync(join(outside, 'kept.txt'), 'kept');
    symlinkSync(outside, join(root, 'a/out')); // a link out of the tree: removed, never followed
    return root;
  }

  it('removes a tree without following its links, and a path already gone is fine', async () => {
    const root = tree();
    await removeTree(root);
    expect(existsSync(root)).toBe(false);
    expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('kept');
    await expect(removeTree(root)).resolves.toBeUndefined();
  });

  it('still removes the tree where no rm is on PATH', async () => {
    const root = tree();
    process.env.PATH = join(outside, 'no-such-bin');
    await removeTree(root);
    expect(existsSync(root)).toBe(false);
    expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('kept');
  });
});

describe('removeTreeBehind', () => {
  let parent: string;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'remove-tree-behind-'));
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('takes the tree out of its place before it resolves, and frees it behind the caller', async () => {
    const tree = join(parent, 'sandbox');
    mkdirSync(join(tree, 'work', 'src'), { recursive: true });
    for (let i = 0; i < 200; i++) writeFileSync(join(tree, 'work', 'src', `f${i}.txt`), 'x');
    await removeTreeBehind(tree);
    expect(existsSync(tree)).toBe(false);
    await removalsBehind();
    expect(readdirSync(parent)).toEqual([]);
  });

  it('is nothing for a tree already gone, and leaves nothing behind', async () => {
    await removeTreeBehind(join(parent, 'never-was'));
    await removalsBehind();
    expect(readdirSync(parent)).toEqual([]);
  });
});
