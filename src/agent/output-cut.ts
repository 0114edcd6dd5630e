/**
 * Long tool outputs (a build log, a test run) are cut before they reach the model: the head and
 * the tail are kept, the middle replaced by one line saying how much went. The tail gets two
 * thirds of the budget because the end of a command's output carries what matters most: the
 * error, the failing test, the summary line. The head keeps what was run and its first lines.
 */
export interface CutResult {
  text: string;
  /** Characters (code points) or lines removed; 0 when the text was returned as it is. */
  cut: number;
}

/**
 * `text` when it has at most `maxChars` characters, counted in code points (an emoji is one),
 * else its first ⌊maxChars/3⌋ and last remaining characters around a note line. The note is not
 * counted in `maxChars`, so small budgets (even 0) still say what was cut. Never splits a
 * surrogate pair: slices are taken at code point boundaries. `alreadyCut` counts characters the
 * caller dropped from the middle before (an output too big to keep whole): the note adds them.
 */
export function cutOutput(text: string, maxChars: number, alreadyCut = 0): CutResult {
  const total = codePoints(text);
  const max = budget(maxChars);
  if (total <= max && alreadyCut === 0) return { text, cut: 0 };
  const head = Math.min(Math.floor(max / 3), total);
  const tail = Math.min(max - Math.floor(max / 3), total - head);
  const cut = total - head - tail + alreadyCut;
  const note = `… [${cut} characters cut: showing the first ${head} and the last ${tail}] …`;
  const parts = [text.slice(0, indexAfter(text, head)), note, text.slice(indexBeforeLast(text, tail))];
  return { text: parts.filter((part) => part !== '').join('\n'), cut };
}

/**
 * The same by lines: `text` when it has at most `maxLines` lines (a final `\n` ends the last
 * line, it does not start an empty one), else the first ⌊maxLines/3⌋ and the last remaining
 * lines around the note line. Works on positions of `\n`, so no array of lines is built.
 */
export function cutLines(text: string, maxLines: number): CutResult {
  const endsWithNewline = text.endsWith('\n');
  const body = endsWithNewline ? text.slice(0, -1) : text;
  const total = text === '' ? 0 : count(body, '\n') + 1;
  const max = budget(maxLines);
  if (total <= max) return { text, cut: 0 };
  const head = Math.floor(max / 3);
  const tail = max - head;
  const cut = total - head - tail;
  let headEnd = 0; // just after the head's last '\n'
  for (let i = 0; i < head; i += 1) headEnd = body.indexOf('\n', headEnd) + 1;
  // cut ≥ 1, so the `\n`s searched for below exist and head and tail never overlap.
  let newline = body.length; // ends as the '\n' just before the tail
  for (let i = 0; i < tail; i += 1) newline = body.lastIndexOf('\n', newline - 1);
  const note = `… [${cut} lines cut: showing the first ${head} and the last ${tail}] …`;
  const tailText = tail === 0 ? '' : `\n${text.slice(newline + 1)}`;
  return { text: `${body.slice(0, headEnd)}${note}${tailText}`, cut };
}

/** A whole, non-negative budget; NaN and negatives mean 0, Infinity never cuts. */
function budget(max: number): number {
  return Number.isNaN(max) ? 0 : Math.max(0, Math.floor(max));
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Code points in `text`; a lone surrogate counts as one. */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i += 1) {
    if (isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1))) {
      n -= 1;
      i += 1;
    }
  }
  return n;
}

/** The UTF-16 index just after the first `n` code points. */
function indexAfter(text: string, n: number): number {
  let i = 0;
  for (let k = 0; k < n && i < text.length; k += 1) {
    i += isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

/** The UTF-16 index where the last `n` code points start. */
function indexBeforeLast(text: string, n: number): number {
  let i = text.length;
  for (let k = 0; k < n && i > 0; k += 1) {
    i -= i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2)) ? 2 : 1;
  }
  return i;
}

function count(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n += 1;
  return n;
}
