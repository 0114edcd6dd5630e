import { type Pair, type YAMLMap, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { FieldShape } from './config-shape.js';

/**
 * Each key's documentation, read from the comments of config/service.example.yml (the one place
 * it is written), by key path in the file's shape: operator-named keys become `*`, list items
 * `[]` (`projects.*.repos[].url`). A key's comment is the comment above it (or beside its value);
 * keys the example documents in a table ("Keys of a project:", or "Keys:" under the key itself)
 * take their text from that table. The first text found for a path wins.
 */
export function keyDescriptions(exampleText: string, shape: FieldShape): Map<string, string> {
  const out = new Map<string, string>();
  walk(parseDocument(exampleText).contents, shape, '', { lines: exampleText.split('\n'), text: exampleText, out });
  return out;
}

interface Source { lines: string[]; text: string; out: Map<string, string> }

/**
 * The comment lines right above the line `offset` is on, without their `#`. Read from the text
 * rather than from the parser's comments, which give the lines after an empty value (`host:`) to
 * that value instead of to the key below them.
 */
function commentAbove(source: Source, offset: number): string {
  const line = source.text.slice(0, offset).split('\n').length - 1;
  const above: string[] = [];
  for (let i = line - 1; i >= 0 && /^\s*#/.test(source.lines[i]!); i--) above.unshift(source.lines[i]!.replace(/^\s*#/, ''));
  return above.join('\n');
}

/** Where the tables under a key document their keys, relative to that key. */
const TABLE_HEADINGS: [prefix: string, relative: string][] = [
  ['Keys of a project', '*'],
  ['Keys of a repository', '*.repos[]'],
  ['Keys of a trigger block', '*.platform_?_trigger'],
  ['Keys of pr_commands', '*.pr_commands'],
  ['Keys:', ''],
];

const join = (path: string, key: string) => (path === '' ? key : key.startsWith('[') ? `${path}${key}` : `${path}.${key}`);

function walk(node: unknown, shape: FieldShape, path: string, source: Source): void {
  const { out } = source;
  if (shape.kind === 'list') {
    if (isSeq(node)) for (const item of node.items) walk(item, shape.of, join(path, '[]'), source);
    return;
  }
  if (!isMap(node) || (shape.kind !== 'block' && shape.kind !== 'map')) return;
  const flow = (node as YAMLMap).flow === true;
  (node as YAMLMap).items.forEach((pair: Pair) => {
    if (!isScalar(pair.key)) return;
    const key = String(pair.key.value);
    const child = shape.kind === 'map' ? shape.of : shape.keys[key];
    if (child === undefined) return;
    const childPath = join(path, shape.kind === 'map' ? '*' : key);
    // Keys of a flow mapping (`{a: 1}`) share their line, and the comment above it, with the key that holds it.
    const above = flow || !pair.key.range ? '' : commentAbove(source, pair.key.range[0]);
    const value = pair.value;
    const inline = (isScalar(value) && value.value !== null) || ((isMap(value) || isSeq(value)) && value.flow === true);
    const beside = inline ? value.comment : undefined;
    const { own, tables } = splitComment(above);
    record(out, childPath, [own, beside ? paragraphs(beside.split('\n')) : ''].filter(Boolean).join(' '));
    for (const [relative, text] of tables) record(out, relative === '' ? childPath : join(childPath, relative), text);
    walk(pair.value, child, childPath, source);
  });
}

function record(out: Map<string, string>, path: string, text: string): void {
  if (text !== '' && !out.has(path)) out.set(path, text);
}

/**
 * A key's comment: what follows the last `# ----` rule (the file's header sits above the first
 * block), up to the first table heading; and the tables' entries by path relative to the key.
 */
function splitComment(comment: string): { own: string; tables: [string, string][] } {
  let lines = comment.split('\n');
  const rule = lines.findLastIndex((line) => /^\s*-{10,}\s*$/.test(line));
  lines = lines.slice(rule + 1);
  const firstHeading = lines.findIndex((line) => headingOf(line) !== null);
  if (firstHeading < 0) return { own: paragraphs(lines), tables: [] };
  // "… Default: unset. Keys:" ends a sentence of the key's own text and opens its table.
  const lead = lines[firstHeading]!.replace(/\bKeys:\s*$/, '').trim();
  const own = [...lines.slice(0, firstHeading), ...(lead.startsWith('Keys of') ? [] : [lead])];
  return { own: paragraphs(own), tables: parseTables(lines.slice(firstHeading)) };
}

function headingOf(line: string): string | null {
  let trimmed = line.trim();
  if (/(^|\s)Keys:$/.test(trimmed)) trimmed = 'Keys:';
  if (!trimmed.startsWith('Keys of') && trimmed !== 'Keys:') return null;
  const found = TABLE_HEADINGS.find(([prefix]) => trimmed.startsWith(prefix));
  if (!found) throw new Error(`config/service.example.yml: no place is known for the keys under "${trimmed}"`);
  return found[1];
}

/**
 * Entries start three spaces in (`#   key   text`), keys of a nested block five; deeper lines
 * continue the entry above. `a … d` names a run of keys differing in one letter.
 */
function parseTables(lines: string[]): [string, string][] {
  const entries: { path: string; lines: string[] }[] = [];
  let base = '';
  let parent = '';
  for (const line of lines) {
    const heading = headingOf(line);
    if (heading !== null) {
      base = heading;
      continue;
    }
    const entry = /^( {3}| {5})([a-z_][a-z0-9_]*)(?: … ([a-z_][a-z0-9_]*))?(?:\s+(.*))?$/.exec(line);
    if (entry) {
      const [, indent, first, last, text] = entry as unknown as [string, string, string, string | undefined, string | undefined];
      const keys = last === undefined ? [first] : keyRun(first, last);
      if (indent.length === 3) parent = first;
      // The keys of a run share their text.
      const shared = text ? [text] : [];
      for (const key of keys) {
        const relative = indent.length === 3 ? key : `${parent}.${key}`;
        entries.push({ path: base === '' ? relative : `${base}.${relative}`, lines: shared });
      }
      continue;
    }
    // Deeper indentation continues the entry above.
    if (/^ {6,}\S/.test(line) && entries.length > 0) entries.at(-1)!.lines.push(line);
  }
  return entries.map(({ path, lines: text }) => [path, paragraphs(text)]);
}

function keyRun(first: string, last: string): string[] {
  const at = [...first].findIndex((c, i) => c !== last[i]);
  if (first.length !== last.length || at < 0) return [first, last];
  const keys: string[] = [];
  for (let c = first.charCodeAt(at); c <= last.charCodeAt(at); c++) keys.push(first.slice(0, at) + String.fromCharCode(c) + first.slice(at + 1));
  return keys;
}

/** Comment lines as prose: lines of a paragraph joined, paragraphs separated by a blank line. */
function paragraphs(lines: string[]): string {
  return lines.map((l) => l.trim()).join('\n').split(/\n{2,}/).map((p) => p.replace(/\n/g, ' ').replace(/\s{2,}/g, ' ').trim())
    .filter(Boolean).join('\n\n');
}
