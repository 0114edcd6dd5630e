import { createElement, Fragment, type ReactNode } from 'react';

/**
 * A small Markdown renderer for reports a run saved (the security scan's): headings, paragraphs,
 * lists, block quotes, tables, code, emphasis and links. It builds React elements, never HTML
 * strings: raw HTML in the text stays text (React escapes it), and a link is made only of an
 * absolute http(s) URL; any other target (`javascript:`, `data:`, relative) leaves its label as
 * plain text. Headings move one level down so the page keeps its single h1.
 */
export type Inline =
  | string
  | { t: 'code'; v: string }
  | { t: 'strong' | 'em'; c: Inline[] }
  | { t: 'link'; href: string; c: Inline[] };

export type Block =
  | { t: 'heading'; level: number; c: Inline[] }
  | { t: 'p'; c: Inline[] }
  | { t: 'code'; lang: string; v: string }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'quote'; c: Block[] }
  | { t: 'hr' }
  | { t: 'table'; head: Inline[][]; rows: Inline[][][] };

const MAX_DEPTH = 8;

/** The target of a link, or null when it is not an absolute http(s) URL. */
export function safeHref(raw: string): string | null {
  const trimmed = raw.trim();
  if (!/^https?:\/\//i.test(trimmed) || /[\u0000-\u0020\u007f]/.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };

function entity(source: string, at: number): { text: string; end: number } | null {
  const m = /^&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/i.exec(source.slice(at, at + 12));
  if (!m) return null;
  const name = m[1]!;
  let text: string | undefined;
  if (name.startsWith('#')) {
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    text = code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
  } else {
    text = ENTITIES[name.toLowerCase()];
  }
  return text === undefined ? null : { text, end: at + m[0].length };
}

/** Inline Markdown to a list of text and marks. */
export function parseInline(source: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let buffer = '';
  const flush = () => {
    if (buffer) out.push(buffer);
    buffer = '';
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\' && i + 1 < source.length && /[!-/:-@[-`{-~]/.test(source[i + 1]!)) {
      buffer += source[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(source.slice(i))![0];
      const close = source.indexOf(run, i + run.length);
      if (close !== -1) {
        flush();
        out.push({ t: 'code', v: source.slice(i + run.length, close).replace(/^ (.*) $/s, '$1') });
        i = close + run.length;
        continue;
      }
      buffer += run;
      i += run.length;
      continue;
    }
    if (c === '&') {
      const e = entity(source, i);
      if (e) {
        buffer += e.text;
        i = e.end;
        continue;
      }
    }
    if (c === '<') {
      const auto = /^<(https?:\/\/[^\s<>]+)>/i.exec(source.slice(i));
      const href = auto ? safeHref(auto[1]!) : null;
      if (auto && href) {
        flush();
        out.push({ t: 'link', href, c: [auto[1]!] });
        i += auto[0].length;
        continue;
      }
    }
    if (c === '[' && depth < MAX_DEPTH) {
      const link = linkAt(source, i);
      if (link) {
        flush();
        const label = parseInline(link.label, depth + 1);
        const href = safeHref(link.target);
        if (href) out.push({ t: 'link', href, c: label });
        else out.push(...label);
        i = link.end;
        continue;
      }
    }
    if ((c === '*' || c === '_') && depth < MAX_DEPTH) {
      const double = source[i + 1] === c;
      const marker = double ? c + c : c;
      const before = source[i - 1] ?? ' ';
      // `_` inside a word (snake_case) is not emphasis.
      const opens = source[i + marker.length] !== undefined && !/\s/.test(source[i + marker.length]!) && (c === '*' || !/\w/.test(before));
      const close = opens ? findClose(source, i + marker.length, marker) : -1;
      if (close !== -1) {
        flush();
        out.push({ t: double ? 'strong' : 'em', c: parseInline(source.slice(i + marker.length, close), depth + 1) });
        i = close + marker.length;
        continue;
      }
      buffer += marker;
      i += marker.length;
      continue;
    }
    buffer += c;
    i += 1;
  }
  flush();
  return out;
}

function findClose(source: string, from: number, marker: string): number {
  let at = source.indexOf(marker, from);
  while (at !== -1) {
    const after = source[at + marker.length];
    const okBefore = !/\s/.test(source[at - 1] ?? ' ');
    const okAfter = marker[0] === '*' || after === undefined || !/\w/.test(after);
    if (at > from && okBefore && okAfter && (marker.length === 2 || source[at + 1] !== marker)) return at;
    at = source.indexOf(marker, at + marker.length);
  }
  return -1;
}

function linkAt(source: string, at: number): { label: string; target: string; end: number } | null {
  let depth = 0;
  let i = at;
  for (; i < source.length; i += 1) {
    const ch = source[i];
    if (ch === '\\') { i += 1; continue; }
    if (ch === '[') depth += 1;
    if (ch === ']') { depth -= 1; if (depth === 0) break; }
  }
  if (depth !== 0 || source[i + 1] !== '(') return null;
  const close = source.indexOf(')', i + 2);
  if (close === -1) return null;
  const target = source.slice(i + 2, close).trim().split(/\s+/)[0] ?? '';
  return { label: source.slice(at + 1, i), target: target.replace(/^<(.*)>$/, '$1'), end: close + 1 };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function cells(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '');
  return body.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function startsBlock(line: string, next: string | undefined): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || LIST_ITEM.test(line) || /^ {0,3}>/.test(line)
    || (line.includes('|') && next !== undefined && TABLE_RULE.test(next));
}

/** Block Markdown to blocks. */
export function parseMarkdown(source: string, depth = 0): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) { i += 1; continue; }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) body.push(lines[i++]!);
      i += 1;
      blocks.push({ t: 'code', lang: fence[2] ?? '', v: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'heading', level: heading[1]!.length, c: parseInline(heading[2]!) });
      i += 1;
      continue;
    }
    if (RULE.test(line)) { blocks.push({ t: 'hr' }); i += 1; continue; }
    if (line.includes('|') && lines[i + 1] !== undefined && TABLE_RULE.test(lines[i + 1]!)) {
      const head = cells(line).map((cell) => parseInline(cell));
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && lines[i]!.trim() && lines[i]!.includes('|')) rows.push(cells(lines[i++]!).map((cell) => parseInline(cell)));
      blocks.push({ t: 'table', head, rows });
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^ {0,3}> ?/, ''));
      blocks.push(depth < MAX_DEPTH ? { t: 'quote', c: parseMarkdown(body.join('\n'), depth + 1) } : { t: 'p', c: [body.join(' ')] });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]!);
      const items: Block[][] = [];
      while (i < lines.length) {
        const m = LIST_ITEM.exec(lines[i]!);
        if (!m || /\d/.test(m[2]!) !== ordered) break;
        const body = [m[3]!];
        i += 1;
        // The item's further lines: indented ones, or a paragraph's lazy continuation.
        while (i < lines.length) {
          const next = lines[i]!;
          if (/^\s{2,}\S/.test(next)) body.push(next.replace(/^\s{2,4}/, ''));
          else if (next.trim() && !startsBlock(next, lines[i + 1])) body.push(next);
          else break;
          i += 1;
        }
        items.push(depth < MAX_DEPTH ? parseMarkdown(body.join('\n'), depth + 1) : [{ t: 'p', c: [body.join(' ')] }]);
      }
      blocks.push({ t: 'list', ordered, start: ordered ? parseInt(item[2]!, 10) : 1, items });
      continue;
    }
    const body: string[] = [];
    while (i < lines.length && lines[i]!.trim() && (body.length === 0 || !startsBlock(lines[i]!, lines[i + 1]))) body.push(lines[i++]!.trim());
    blocks.push({ t: 'p', c: parseInline(body.join('\n')) });
  }
  return blocks;
}

function inlineNodes(nodes: Inline[]): ReactNode[] {
  return nodes.map((node, k) => {
    if (typeof node === 'string') return node;
    switch (node.t) {
      case 'code': return createElement('code', { key: k, className: 'rounded bg-slate-100 px-1 font-mono text-[0.9em] dark:bg-slate-800' }, node.v);
      case 'strong': return createElement('strong', { key: k }, ...inlineNodes(node.c));
      case 'em': return createElement('em', { key: k }, ...inlineNodes(node.c));
      case 'link': return createElement('a', { key: k, href: node.href, target: '_blank', rel: 'noopener noreferrer nofollow', className: 'text-blue-700 underline dark:text-blue-300' }, ...inlineNodes(node.c));
    }
  });
}

function blockNodes(blocks: Block[], tight = false): ReactNode[] {
  return blocks.map((block, k) => {
    switch (block.t) {
      case 'heading': {
        const level = Math.min(6, block.level + 1);
        const size = ['', '', 'text-xl', 'text-lg', 'text-base', 'text-sm', 'text-sm'][level];
        return createElement(`h${level}`, { key: k, className: `mt-4 mb-2 font-semibold ${size}` }, ...inlineNodes(block.c));
      }
      case 'p': return tight ? createElement(Fragment, { key: k }, ...inlineNodes(block.c)) : createElement('p', { key: k, className: 'my-2 whitespace-pre-line' }, ...inlineNodes(block.c));
      case 'code': return createElement('pre', { key: k, className: 'my-2 overflow-x-auto rounded bg-slate-100 p-2 text-xs dark:bg-slate-800' }, createElement('code', null, block.v));
      case 'hr': return createElement('hr', { key: k, className: 'my-4 border-slate-300 dark:border-slate-700' });
      case 'quote': return createElement('blockquote', { key: k, className: 'my-2 border-l-4 border-slate-300 pl-3 dark:border-slate-600' }, ...blockNodes(block.c));
      case 'list': {
        const one = block.items.every((item) => item.length <= 1);
        const items = block.items.map((item, j) => createElement('li', { key: j }, ...blockNodes(item, one)));
        return block.ordered
          ? createElement('ol', { key: k, start: block.start, className: 'my-2 list-decimal pl-6' }, ...items)
          : createElement('ul', { key: k, className: 'my-2 list-disc pl-6' }, ...items);
      }
      case 'table': return createElement('div', { key: k, className: 'my-2 overflow-x-auto' }, createElement('table', { className: 'text-sm' },
        createElement('thead', null, createElement('tr', null, ...block.head.map((cell, j) => createElement('th', { key: j, scope: 'col', className: 'border-b border-slate-300 px-2 py-1 text-left dark:border-slate-600' }, ...inlineNodes(cell))))),
        createElement('tbody', null, ...block.rows.map((row, r) => createElement('tr', { key: r }, ...row.map((cell, j) => createElement('td', { key: j, className: 'border-b border-slate-200 px-2 py-1 align-top dark:border-slate-800' }, ...inlineNodes(cell))))))));
    }
  });
}

/** Markdown to React elements (safe: see the file's comment). */
export function renderMarkdown(source: string): ReactNode {
  return createElement(Fragment, null, ...blockNodes(parseMarkdown(source)));
}
