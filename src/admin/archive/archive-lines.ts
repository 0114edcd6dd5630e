import { StringDecoder } from 'node:string_decoder';

/** A line longer than this is refused instead of being held whole in memory. */
export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`a line of the archive is longer than ${limit} characters`);
  }
}

/**
 * The lines of a UTF-8 byte stream, without their `\n`; a last line without one is yielded too.
 * Each chunk is searched once, so a long line costs no more than a short one per byte.
 */
export async function* linesOf(chunks: AsyncIterable<Buffer>, maxLineLength: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const check = () => {
    if (pending.length > maxLineLength) throw new LineTooLongError(maxLineLength);
  };
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    let newline = text.indexOf('\n');
    if (newline === -1) {
      pending += text;
      check();
      continue;
    }
    pending += text.slice(0, newline);
    check();
    yield pending;
    let start = newline + 1;
    while ((newline = text.indexOf('\n', start)) !== -1) {
      pending = text.slice(start, newline);
      check();
      yield pending;
      start = newline + 1;
    }
    pending = text.slice(start);
    check();
  }
  pending += decoder.end();
  if (pending.length > 0) yield pending;
}
