import { describe, expect, it } from 'vitest';
import { diffLines, splitLines } from './line-diff.js';
import { newSideLines } from './unified-diff.js';

/** Fewest inserted lines any edit script needs: |b| − LCS(a, b), by the textbook table. */
function fewestInserts(a: string[], b: string[]): number {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  }
  return b.length - table[0]![0]!;
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('diffLines', () => {
  it('finds the added and modified lines of the new side with unified hunks', () => {
    const result = diffLines('a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n', 'a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n');
    expect(result.changed).toEqual([2, 11]);
    expect(result.approximate).toBe(false);
    expect(result.hunks).toBe(['@@ -1,5 +1,5 @@', ' a', '-b', '+B', ' c', ' d', ' e', '@@ -8,3 +8,4 @@', ' h', ' i', ' j', '+k', ''].join('\n'));
    expect(newSideLines(result.hunks).changed).toEqual(result.changed);
  });

  it('handles empty sides: a new file is all changed, a deleted one has nothing on the new side', () => {
    expect(diffLines('', 'x\ny\n')).toMatchObject({ changed: [1, 2], hunks: '@@ -0,0 +1,2 @@\n+x\n+y\n' });
    expect(diffLines('x\ny\n', '')).toMatchObject({ changed: [], hunks: '@@ -1,2 +0,0 @@\n-x\n-y\n' });
    expect(diffLines('same\n', 'same\n')).toEqual({ changed: [], hunks: '', approximate: false });
  });

  it('needs no more inserted lines than the longest common subsequence allows (random texts)', () => {
    const random = seeded(7);
    for (let round = 0; round < 200; round++) {
      const make = (): string[] => Array.from({ length: Math.floor(random() * 14) }, () => 'abcd'[Math.floor(random() * 4)]!);
      const a = make();
      const b = make();
      const result = diffLines(a.map((l) => `${l}\n`).join(''), b.map((l) => `${l}\n`).join(''));
      expect(result.changed).toHaveLength(fewestInserts(a, b));
      expect(newSideLines(result.hunks).changed).toEqual(result.changed);
      for (const line of result.changed) expect(line).toBeLessThanOrEqual(b.length);
    }
  });

  it('past its cap counts the whole differing middle as changed instead of searching on', () => {
    const oldText = ['head', ...Array.from({ length: 50 }, (_, i) => `old ${i}`), 'tail'].join('\n');
    const newText = ['head', ...Array.from({ length: 50 }, (_, i) => `new ${i}`), 'tail'].join('\n');
    const capped = diffLines(oldText, newText, { maxEdits: 10 });
    expect(capped.approximate).toBe(true);
    expect(capped.changed).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(diffLines(oldText, newText, { maxLines: 20 }).approximate).toBe(true);
  });

  it('splitLines treats a final newline as the end of the last line', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a')).toEqual(['a']);
    expect(splitLines('a\n')).toEqual(['a']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });
});
