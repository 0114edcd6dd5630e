import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { addedLinesOf, type FileAdditions, unquote } from './added-lines.js';

async function read(diff: string): Promise<FileAdditions[]> {
  const files: FileAdditions[] = [];
  for await (const file of addedLinesOf(Readable.from([Buffer.from(diff)]))) files.push(file);
  return files;
}

describe('addedLinesOf', () => {
  it('yields the added lines of each file with their new line numbers; deletions add nothing', async () => {
    const diff = [
      'diff --git a/a.txt b/a.txt',
      'index 1..2 100644',
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -2 +2,2 @@',
      '-old',
      '+new',
      '+++ looks like a header',
      '@@ -10,0 +12 @@ context',
      '+later',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      'diff --git "a/caf\\303\\251 x.txt" "b/caf\\303\\251 x.txt"',
      'new file mode 100644',
      '--- /dev/null',
      '+++ "b/caf\\303\\251 x.txt"',
      '@@ -0,0 +1 @@',
      '+hi\r',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    expect(await read(diff)).toEqual([
      { path: 'a.txt', lines: [{ number: 2, text: 'new' }, { number: 3, text: '++ looks like a header' }, { number: 12, text: 'later' }] },
      { path: 'café x.txt', lines: [{ number: 1, text: 'hi\r' }] },
    ]);
  });

  it('undoes git path quoting', () => {
    expect(unquote('"b/tab\\there \\"q\\" back\\\\slash"')).toBe('b/tab\there "q" back\\slash');
    expect(unquote('plain/path')).toBe('plain/path');
  });
});
