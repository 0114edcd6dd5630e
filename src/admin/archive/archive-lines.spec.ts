import { describe, expect, it } from 'vitest';
import { LineTooLongError, linesOf } from './archive-lines.js';

async function collect(chunks: (string | Buffer)[], max = 100): Promise<string[]> {
  const out: string[] = [];
  async function* source() {
    for (const c of chunks) yield Buffer.isBuffer(c) ? c : Buffer.from(c);
  }
  for await (const line of linesOf(source(), max)) out.push(line);
  return out;
}

describe('linesOf', () => {
  it('splits across chunk boundaries, keeps empty lines, and yields a last line without its newline', async () => {
    expect(await collect(['ab', 'c\nde', 'f\n\ng\nh'])).toEqual(['abc', 'def', '', 'g', 'h']);
    expect(await collect(['one\n'])).toEqual(['one']);
  });

  it('decodes a character split between chunks', async () => {
    const snowman = Buffer.from('☃\n');
    expect(await collect([snowman.subarray(0, 1), snowman.subarray(1)])).toEqual(['☃']);
  });

  it('refuses a line longer than the limit, whether or not its end has arrived', async () => {
    await expect(collect(['x'.repeat(60), 'x'.repeat(60)])).rejects.toBeInstanceOf(LineTooLongError);
    await expect(collect([`${'x'.repeat(101)}\nshort\n`])).rejects.toBeInstanceOf(LineTooLongError);
    expect(await collect([`${'x'.repeat(100)}\n`])).toHaveLength(1);
  });
});
