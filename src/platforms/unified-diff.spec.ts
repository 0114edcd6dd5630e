import { describe, expect, it } from 'vitest';
import { hasHunks, newSideLines } from './unified-diff.js';

describe('newSideLines', () => {
  it('counts added and modified lines on the new side, context shown but not changed', () => {
    const patch = ['@@ -1,4 +1,5 @@', ' one', '-two', '+TWO', '+two and a half', ' three', ' four', '@@ -10,2 +11,3 @@ function x() {', ' ten', '+inserted', ' eleven'].join('\n');
    expect(newSideLines(patch)).toEqual({ changed: [2, 3, 12], shown: [1, 2, 3, 4, 5, 11, 12, 13] });
  });

  it('skips file headers and reads a new file and a deleted one', () => {
    const added = ['diff --git a/x b/x', 'new file mode 100644', '--- /dev/null', '+++ b/x', '@@ -0,0 +1,2 @@', '+a', '+b', ''].join('\n');
    expect(newSideLines(added)).toEqual({ changed: [1, 2], shown: [1, 2] });
    expect(newSideLines(['@@ -1,2 +0,0 @@', '-a', '-b'].join('\n'))).toEqual({ changed: [], shown: [] });
  });

  it('reads content that looks like a header inside a hunk as content', () => {
    const patch = ['@@ -1 +1,2 @@', '--- a comment', '+++ b heading', '++more'].join('\n');
    expect(newSideLines(patch).changed).toEqual([1, 2]);
  });

  it('ignores "no newline" markers, trimmed context lines and text that is not a diff', () => {
    const patch = ['@@ -1,2 +1,2 @@', '', '-b', '\\ No newline at end of file', '+B', '\\ No newline at end of file'].join('\n');
    expect(newSideLines(patch)).toEqual({ changed: [2], shown: [1, 2] });
    expect(newSideLines('Binary files a/logo.png and b/logo.png differ\n')).toEqual({ changed: [], shown: [] });
    expect(newSideLines('')).toEqual({ changed: [], shown: [] });
  });

  it('hasHunks tells a textual diff from a binary notice', () => {
    expect(hasHunks('@@ -1 +1 @@\n-a\n+b\n')).toBe(true);
    expect(hasHunks('Binary files differ')).toBe(false);
    expect(hasHunks(null)).toBe(false);
  });
});
