import { describe, expect, it } from 'vitest';
import { adfToText, isAdfDocument } from './adf-to-text.js';

const text = (t: string, marks?: unknown[]) => ({ type: 'text', text: t, ...(marks ? { marks } : {}) });
const p = (...content: unknown[]) => ({ type: 'paragraph', content });
const doc = (...content: unknown[]) => ({ type: 'doc', version: 1, content });
const li = (...content: unknown[]) => ({ type: 'listItem', content });

describe('adfToText', () => {
  it('separates paragraphs by a blank line and keeps hard breaks as line breaks', () => {
    expect(adfToText(doc(p(text('First line'), { type: 'hardBreak' }, text('second line')), p(text('Next paragraph.'))))).toBe(
      'First line\nsecond line\n\nNext paragraph.',
    );
  });

  it('marks headings by level', () => {
    expect(adfToText(doc({ type: 'heading', attrs: { level: 2 }, content: [text('Steps')] }, p(text('x'))))).toBe('## Steps\n\nx');
  });

  it('renders bullet and ordered lists, nested ones indented, ordered from attrs.order', () => {
    const nested = { type: 'bulletList', content: [li(p(text('inner')))] };
    const bullets = { type: 'bulletList', content: [li(p(text('one')), nested), li(p(text('two')))] };
    const ordered = { type: 'orderedList', attrs: { order: 3 }, content: [li(p(text('c'))), li(p(text('d')))] };
    expect(adfToText(doc(bullets, ordered))).toBe('- one\n  - inner\n- two\n\n3. c\n4. d');
  });

  it('fences code blocks with their language and keeps their lines', () => {
    const code = { type: 'codeBlock', attrs: { language: 'ts' }, content: [text('const a = 1;\nconst b = 2;')] };
    expect(adfToText(doc(p(text('Before')), code))).toBe('Before\n\n```ts\nconst a = 1;\nconst b = 2;\n```');
  });

  it('gives mentions as @Name, emoji, links with their URL, cards, statuses and dates', () => {
    const line = p(
      { type: 'mention', attrs: { id: '5b10ac8d82e05b22cc7d4ef5', text: '@Ana Lima' } },
      text(' see '),
      text('the spec', [{ type: 'link', attrs: { href: 'https://example.com/spec' } }]),
      text(' '),
      { type: 'emoji', attrs: { shortName: ':smile:', text: '😄' } },
      text(' '),
      { type: 'inlineCard', attrs: { url: 'https://acme.atlassian.net/browse/BILL-1' } },
      text(' '),
      { type: 'status', attrs: { text: 'BLOCKED', color: 'red' } },
      text(' '),
      { type: 'date', attrs: { timestamp: '1767225600000' } },
    );
    expect(adfToText(doc(line))).toBe('@Ana Lima see the spec (https://example.com/spec) 😄 https://acme.atlassian.net/browse/BILL-1 [BLOCKED] 2026-01-01');
    expect(adfToText(doc(p({ type: 'mention', attrs: { id: 'x', text: 'Bob' } })))).toBe('@Bob');
  });

  it('quotes blockquotes, keeps panels, tables and tasks readable', () => {
    const quote = { type: 'blockquote', content: [p(text('quoted'))] };
    const panel = { type: 'panel', attrs: { panelType: 'info' }, content: [p(text('in a panel'))] };
    const cell = (t: string) => ({ type: 'tableCell', content: [p(text(t))] });
    const table = { type: 'table', content: [{ type: 'tableRow', content: [cell('a'), cell('b')] }, { type: 'tableRow', content: [cell('1'), cell('2')] }] };
    const tasks = { type: 'taskList', content: [{ type: 'taskItem', attrs: { state: 'DONE' }, content: [text('done')] }, { type: 'taskItem', attrs: { state: 'TODO' }, content: [text('todo')] }] };
    expect(adfToText(doc(quote, panel, table, tasks, { type: 'rule' }))).toBe('> quoted\n\nin a panel\n\na | b\n1 | 2\n\n[x] done\n[ ] todo\n\n---');
  });

  it('keeps the text of unknown nodes and survives malformed input', () => {
    expect(adfToText(doc({ type: 'futureBlock', content: [p(text('still here'))] }))).toBe('still here');
    expect(adfToText(null)).toBe('');
    expect(adfToText('plain')).toBe('');
    expect(adfToText(doc(null, 3, { type: 'paragraph', content: 'nope' }, p(text('ok'))))).toBe('ok');
  });

  it('does not overflow the stack on a hostile, deeply nested document', () => {
    let node: unknown = p(text('deep'));
    for (let i = 0; i < 100_000; i++) node = { type: 'blockquote', content: [node] };
    expect(() => adfToText(doc(node))).not.toThrow();
  });

  it('recognises an ADF document', () => {
    expect(isAdfDocument(doc(p(text('x'))))).toBe(true);
    expect(isAdfDocument('text')).toBe(false);
    expect(isAdfDocument({ type: 'paragraph', content: [] })).toBe(false);
  });
});
