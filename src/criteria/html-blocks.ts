import { boundedSource } from './criteria.js';

/** A block of an HTML fragment as a reader sees it: a heading, a list item or a line of text. */
export interface HtmlBlock {
  kind: 'heading' | 'item' | 'text';
  text: string;
}

/** Tags that end a line of text. */
const BREAKS = new Set(['p', 'div', 'br', 'ul', 'ol', 'tr', 'table', 'blockquote', 'hr', 'section', 'article', 'dl', 'dt', 'dd']);
/** Tags whose content is no text a reader sees. */
const HIDDEN = new Set(['script', 'style', 'template', 'head', 'title', 'noscript']);
/** Tags whose content is code: no heading or item inside counts. */
const CODE = new Set(['pre', 'code']);

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** `&amp;`, `&#39;`, `&#x27;` … decoded; an unknown or malformed entity is left as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * An HTML fragment (what Azure DevOps keeps in its rich-text fields) as blocks, read in one pass
 * with `indexOf` (no regular expression over the whole input, no parser dependency): tags are
 * dropped, entities decoded, `<h1>`–`<h6>` become headings, `<li>` items (a nested list's items
 * follow their parent's text as items of their own), `<script>`/`<style>` content vanishes and
 * `<pre>`/`<code>` content is plain text that never forms a heading or an item.
 */
export function htmlBlocks(html: string | null | undefined): HtmlBlock[] {
  const source = boundedSource(html);
  const blocks: HtmlBlock[] = [];
  let kind = 'text' as HtmlBlock['kind'];
  let buffer = '';
  let hidden: string | null = null;
  let code = 0;
  const flush = (next: HtmlBlock['kind'] = 'text') => {
    const text = decodeEntities(buffer).replace(/\s+/g, ' ').trim();
    if (text !== '') blocks.push({ kind: code > 0 && kind !== 'item' ? 'text' : kind, text });
    buffer = '';
    kind = next;
  };
  let at = 0;
  while (at < source.length) {
    const lt = source.indexOf('<', at);
    if (lt < 0) {
      if (!hidden) buffer += source.slice(at);
      break;
    }
    if (!hidden) buffer += source.slice(at, lt);
    if (source.startsWith('<!--', lt)) {
      const end = source.indexOf('-->', lt + 4);
      at = end < 0 ? source.length : end + 3;
      continue;
    }
    const gt = tagEnd(source, lt + 1);
    if (gt < 0) break; // an unterminated tag: the rest is no text
    const inner = source.slice(lt + 1, gt);
    at = gt + 1;
    if (inner.startsWith('!') || inner.startsWith('?')) continue; // a doctype or a processing instruction
    const { name, closing } = tagOf(inner);
    if (hidden) {
      if (closing && name === hidden) hidden = null;
      continue;
    }
    if (name === '') {
      buffer += source.slice(lt, gt + 1); // `a < b` is text, not a tag
      continue;
    }
    if (HIDDEN.has(name)) {
      if (!closing) hidden = name;
      continue;
    }
    if (CODE.has(name)) {
      if (name === 'pre') flush(kind === 'item' && !closing ? 'item' : 'text');
      code = Math.max(0, code + (closing ? -1 : 1));
      continue;
    }
    if (/^h[1-6]$/.test(name)) {
      flush(closing || code > 0 ? 'text' : 'heading');
    } else if (name === 'li') {
      flush(closing || code > 0 ? 'text' : 'item');
    } else if (BREAKS.has(name)) {
      // A line break inside an item keeps it one item; anything else ends the line.
      if (kind === 'item' && (name === 'br' || name === 'p' || name === 'div')) buffer += ' ';
      else flush(kind === 'item' && !(name === 'ul' || name === 'ol') ? 'item' : 'text');
    }
  }
  flush();
  return blocks;
}

/** The `>` ending the tag that starts at `from`, skipping quoted attribute values; -1 when none. */
function tagEnd(source: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      // A quote only opens a value after `=`; `a < b's` is text, found by tagOf's name check.
      if (source[i - 1] === '=' || source[i - 2] === '=') quote = c;
    } else if (c === '>') {
      return i;
    }
  }
  return -1;
}

function tagOf(inner: string): { name: string; closing: boolean } {
  const closing = inner.startsWith('/');
  const m = /^[a-zA-Z][a-zA-Z0-9]{0,15}/.exec(closing ? inner.slice(1) : inner);
  return { name: m ? m[0].toLowerCase() : '', closing };
}
