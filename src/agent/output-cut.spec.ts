import { describe, expect, it } from 'vitest';
import { cutLines, cutOutput } from './output-cut.js';

const digits = '0123456789';
const lines = (n: number, end = '') => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + end;

describe('cutOutput', () => {
  it('returns the text as it is up to and including maxChars', () => {
    expect(cutOutput(digits, 10)).toEqual({ text: digits, cut: 0 });
    expect(cutOutput(digits, 1000)).toEqual({ text: digits, cut: 0 });
    expect(cutOutput('', 0)).toEqual({ text: '', cut: 0 });
    expect(cutOutput(digits, Infinity)).toEqual({ text: digits, cut: 0 });
  });

  it('keeps a third at the head and two thirds at the tail around one note line', () => {
    expect(cutOutput(digits, 9)).toEqual({
      text: '012\n… [1 characters cut: showing the first 3 and the last 6] …\n456789',
      cut: 1,
    });
    expect(cutOutput(digits, 6)).toEqual({
      text: '01\n… [4 characters cut: showing the first 2 and the last 4] …\n6789',
      cut: 4,
    });
  });

  it('handles small budgets: the note still says what went', () => {
    expect(cutOutput(digits, 2)).toEqual({
      text: '… [8 characters cut: showing the first 0 and the last 2] …\n89',
      cut: 8,
    });
    expect(cutOutput(digits, 1).text).toBe('… [9 characters cut: showing the first 0 and the last 1] …\n9');
    for (const max of [0, -5, Number.NaN]) {
      expect(cutOutput(digits, max)).toEqual({
        text: '… [10 characters cut: showing the first 0 and the last 0] …',
        cut: 10,
      });
    }
    expect(cutOutput(digits, 6.9).cut).toBe(4);
  });

  it('counts code points and never splits a surrogate pair', () => {
    const emoji = '😀😁😂🤣😃😄😅😆😉😊'; // ten characters, twenty UTF-16 units
    expect(cutOutput(emoji, 10)).toEqual({ text: emoji, cut: 0 });
    const { text, cut } = cutOutput(emoji, 7);
    expect(cut).toBe(3);
    expect(text).toBe('😀😁\n… [3 characters cut: showing the first 2 and the last 5] …\n😄😅😆😉😊');
    // Mixed widths at the boundaries.
    expect(cutOutput('a😀b😁c😂d', 4).text).toBe('a\n… [3 characters cut: showing the first 1 and the last 3] …\nc😂d');
    expect(cutOutput('😀b😁c😂d', 5)).toEqual({
      text: '😀\n… [1 characters cut: showing the first 1 and the last 4] …\n😁c😂d',
      cut: 1,
    });
  });

  it('keeps the end of a long log, where the error is', () => {
    const log = `${'compiling…\n'.repeat(10_000)}error TS2322: boom\n`;
    const { text, cut } = cutOutput(log, 3000);
    expect(text.endsWith('error TS2322: boom\n')).toBe(true);
    expect(text.startsWith('compiling…')).toBe(true);
    expect(cut).toBe(log.length - 3000);
    expect(text.split('\n').filter((l) => l.startsWith('… ['))).toHaveLength(1);
  });
});

describe('cutLines', () => {
  it('returns the text as it is up to and including maxLines', () => {
    expect(cutLines(lines(6), 6)).toEqual({ text: lines(6), cut: 0 });
    expect(cutLines(lines(6, '\n'), 6)).toEqual({ text: lines(6, '\n'), cut: 0 }); // a final \n is no 7th line
    expect(cutLines('', 0)).toEqual({ text: '', cut: 0 });
  });

  it('keeps a third of the lines at the head and two thirds at the tail', () => {
    expect(cutLines(lines(10), 6)).toEqual({
      text: 'line 1\nline 2\n… [4 lines cut: showing the first 2 and the last 4] …\nline 7\nline 8\nline 9\nline 10',
      cut: 4,
    });
    expect(cutLines(lines(7, '\n'), 6)).toEqual({
      text: 'line 1\nline 2\n… [1 lines cut: showing the first 2 and the last 4] …\nline 4\nline 5\nline 6\nline 7\n',
      cut: 1,
    });
  });

  it('handles small budgets and empty lines', () => {
    expect(cutLines(lines(3), 1)).toEqual({
      text: '… [2 lines cut: showing the first 0 and the last 1] …\nline 3',
      cut: 2,
    });
    expect(cutLines(lines(3), 0)).toEqual({ text: '… [3 lines cut: showing the first 0 and the last 0] …', cut: 3 });
    expect(cutLines('\n\n\n\n', 2)).toEqual({
      text: '… [2 lines cut: showing the first 0 and the last 2] …\n\n\n',
      cut: 2,
    });
    expect(cutLines('\nb\nc', 2).text).toBe('… [1 lines cut: showing the first 0 and the last 2] …\nb\nc');
    expect(cutLines('a\nb\n\n', 2).text).toBe('… [1 lines cut: showing the first 0 and the last 2] …\nb\n\n');
  });

  it('keeps \\r with its line and handles a long output', () => {
    expect(cutLines('a\r\nb\r\nc\r\nd\r\n', 3).text).toBe('a\r\n… [1 lines cut: showing the first 1 and the last 2] …\nc\r\nd\r\n');
    const { text, cut } = cutLines(lines(100_000, '\n'), 300);
    expect(cut).toBe(99_700);
    expect(text.startsWith('line 1\n')).toBe(true);
    expect(text.endsWith('line 100000\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(300 + 1 + 1);
  });
});

describe('cutOutput with characters the caller already dropped', () => {
  it('adds them to the note', () => {
    expect(cutOutput('abcdefghij', 6, 100)).toEqual({ text: 'ab\n… [104 characters cut: showing the first 2 and the last 4] …\nghij', cut: 104 });
    expect(cutOutput('abcdefghij', 6)).toEqual({ text: 'ab\n… [4 characters cut: showing the first 2 and the last 4] …\nghij', cut: 4 });
  });
});
