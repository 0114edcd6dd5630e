/**
 * Atlassian Document Format (what Jira Cloud's REST v3 answers for `description` and comment
 * bodies) to plain text for a reader, human or model. Structure survives as plain-text
 * conventions: blank lines between blocks, `#` before headings, `- ` / `1. ` before list items
 * (nested ones indented), fenced code blocks, `> ` for quotes, `[x]` for done tasks. Inline
 * nodes give the text a reader sees: a mention its `@Name`, an emoji its character or
 * `:short:`, a card or a link its URL. Unknown nodes keep whatever text they contain, so a
 * node type Atlassian adds later degrades to its words rather than to nothing.
 *
 * Pure and total: any JSON value is accepted (a malformed document gives what text it can),
 * and recursion is bounded so a hostile, deeply nested document cannot exhaust the stack.
 */

interface AdfNode {
  type?: unknown;
  text?: unknown;
  attrs?: Record<string, unknown>;
  marks?: unknown;
  content?: unknown;
}

/** Deeper than any editor produces; past it the rest of the branch is dropped. */
const MAX_DEPTH = 64;

/** True for a value shaped like an ADF document (`{type: 'doc', content: [...]}`). */
export function isAdfDocument(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as AdfNode).type === 'doc' && Array.isArray((value as AdfNode).content);
}

export function adfToText(doc: unknown): string {
  const text = blocks(children(doc), 0, '');
  return text.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
}

/** Block nodes joined by blank lines; `indent` prefixes every line (nested lists). */
function blocks(nodes: AdfNode[], depth: number, indent: string): string {
  return nodes
    .map((node) => block(node, depth + 1, indent))
    .filter((part) => part.trim() !== '')
    .join('\n\n');
}

function block(node: AdfNode, depth: number, indent: string): string {
  if (depth > MAX_DEPTH) return '';
  const kids = children(node);
  switch (node.type) {
    case 'paragraph':
      return prefixLines(inline(kids, depth), indent);
    case 'heading': {
      const level = Math.min(6, Math.max(1, Number(node.attrs?.['level']) || 1));
      return prefixLines(`${'#'.repeat(level)} ${inline(kids, depth)}`, indent);
    }
    case 'bulletList':
      return list(kids, depth, indent, () => '- ');
    case 'orderedList': {
      const start = Number(node.attrs?.['order']);
      const first = Number.isInteger(start) && start >= 0 ? start : 1;
      return list(kids, depth, indent, (i) => `${first + i}. `);
    }
    case 'taskList':
    case 'decisionList':
      return list(kids, depth, indent, () => '');
    case 'taskItem':
      return prefixLines(`${node.attrs?.['state'] === 'DONE' ? '[x]' : '[ ]'} ${inline(kids, depth)}`, indent);
    case 'decisionItem':
      return prefixLines(`Decision: ${inline(kids, depth)}`, indent);
    case 'codeBlock': {
      const language = typeof node.attrs?.['language'] === 'string' ? node.attrs['language'] : '';
      return prefixLines(`\`\`\`${language}\n${inline(kids, depth)}\n\`\`\``, indent);
    }
    case 'blockquote':
      return prefixLines(blocks(kids, depth, ''), `${indent}> `);
    case 'rule':
      return `${indent}---`;
    case 'expand':
    case 'nestedExpand': {
      const title = typeof node.attrs?.['title'] === 'string' && node.attrs['title'] ? `${indent}${node.attrs['title']}\n\n` : '';
      return title + blocks(kids, depth, indent);
    }
    case 'table':
      return kids.map((row) => prefixLines(children(row).map((cell) => blocks(children(cell), depth + 1, '').replace(/\n+/g, ' ')).join(' | '), indent)).join('\n');
    case 'mediaSingle':
    case 'mediaGroup':
    case 'media':
      return prefixLines(mediaText(node, kids), indent);
    case 'blockCard':
    case 'embedCard':
      return prefixLines(attrString(node, 'url'), indent);
    default:
      // panel, layoutSection, bodiedExtension, … and types not known yet: their content.
      return kids.length > 0 && kids.some(isBlockNode) ? blocks(kids, depth, indent) : prefixLines(inline(kids.length > 0 ? kids : [node], depth), indent);
  }
}

function list(items: AdfNode[], depth: number, indent: string, marker: (index: number) => string): string {
  return items
    .map((item, i) => {
      const bullet = marker(i);
      const pad = ' '.repeat(bullet.length);
      const body = item.type === 'listItem' ? blocks(children(item), depth, '').replace(/\n\n/g, '\n') : block(item, depth + 1, '');
      return body
        .split('\n')
        .map((line, n) => `${indent}${n === 0 ? bullet : pad}${line}`)
        .join('\n');
    })
    .join('\n');
}

function inline(nodes: AdfNode[], depth: number): string {
  if (depth > MAX_DEPTH) return '';
  return nodes.map((node) => inlineNode(node, depth + 1)).join('');
}

function inlineNode(node: AdfNode, depth: number): string {
  switch (node.type) {
    case 'text': {
      const text = typeof node.text === 'string' ? node.text : '';
      const href = linkOf(node);
      return href && href !== text ? `${text} (${href})` : text;
    }
    case 'hardBreak':
      return '\n';
    case 'mention': {
      const text = attrString(node, 'text') || attrString(node, 'id');
      return text.startsWith('@') || text === '' ? text : `@${text}`;
    }
    case 'emoji':
      return attrString(node, 'text') || attrString(node, 'shortName');
    case 'inlineCard':
      return attrString(node, 'url');
    case 'status':
      return `[${attrString(node, 'text')}]`;
    case 'date': {
      const ms = Number(attrString(node, 'timestamp'));
      return Number.isFinite(ms) && ms !== 0 ? new Date(ms).toISOString().slice(0, 10) : '';
    }
    case 'mediaInline':
      return mediaText(node, []);
    case 'placeholder':
      return ''; // the editor's hint in an empty template field, not content
    default:
      return children(node).length > 0 ? inline(children(node), depth) : typeof node.text === 'string' ? node.text : '';
  }
}

function mediaText(node: AdfNode, kids: AdfNode[]): string {
  const named = [node, ...kids].map((n) => attrString(n, 'alt') || attrString(n, 'url')).filter(Boolean);
  return named.length > 0 ? `[attachment: ${named.join(', ')}]` : '[attachment]';
}

function linkOf(node: AdfNode): string | null {
  if (!Array.isArray(node.marks)) return null;
  for (const mark of node.marks as AdfNode[]) {
    if (mark?.type === 'link' && typeof mark.attrs?.['href'] === 'string') return mark.attrs['href'];
  }
  return null;
}

const BLOCK_TYPES = new Set(['paragraph', 'heading', 'bulletList', 'orderedList', 'codeBlock', 'blockquote', 'rule', 'table', 'panel', 'mediaSingle', 'mediaGroup', 'taskList', 'decisionList', 'expand', 'nestedExpand', 'blockCard', 'embedCard', 'layoutSection', 'layoutColumn', 'bodiedExtension']);

function isBlockNode(node: AdfNode): boolean {
  return typeof node.type === 'string' && BLOCK_TYPES.has(node.type);
}

function children(node: unknown): AdfNode[] {
  const content = typeof node === 'object' && node !== null ? (node as AdfNode).content : undefined;
  return Array.isArray(content) ? content.filter((c): c is AdfNode => typeof c === 'object' && c !== null) : [];
}

function attrString(node: AdfNode, name: string): string {
  const value = node.attrs?.[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function prefixLines(text: string, prefix: string): string {
  return prefix === '' ? text : text.split('\n').map((line) => `${prefix}${line}`).join('\n');
}
