import { type CriteriaParse, boundedSource, isCriteriaHeading, numberCriteria } from './criteria.js';

/**
 * How one text format marks what the criteria parser needs. Every pattern is anchored and free of
 * nested quantifiers: a hostile description costs time linear in its length.
 */
export interface LineDialect {
  /** The heading's text when `line` is a heading (of any level), else null. */
  heading(line: string): string | null;
  /** When `line` opens a code block: a test for the line that closes it. */
  fenceOpen(line: string): ((line: string) => boolean) | null;
  /** The item's text when `line` is a criteria item, else null. */
  item(line: string): string | null;
  /** True when `line` starts some other list item (it ends the item before it). */
  otherListItem(line: string): boolean;
}

/**
 * The items under the first heading named "Acceptance criteria", up to the next heading of any
 * level. Lines inside code blocks are neither headings nor items. A non-blank line right after an
 * item (no blank line between) that starts nothing else continues it, as Markdown's list items do.
 */
export function sectionItems(source: string | null | undefined, dialect: LineDialect): CriteriaParse {
  const lines = boundedSource(source).split(/\r\n|\r|\n/);
  const texts: string[] = [];
  let inSection = false;
  let seen = false;
  let closer: ((line: string) => boolean) | null = null;
  let open: number | null = null; // index in texts of the item a continuation line extends
  for (const line of lines) {
    if (closer) {
      if (closer(line)) closer = null;
      continue;
    }
    const fence = dialect.fenceOpen(line);
    if (fence) {
      closer = fence;
      open = null;
      continue;
    }
    const heading = dialect.heading(line);
    if (heading !== null) {
      open = null;
      if (inSection) break;
      if (!seen && isCriteriaHeading(heading)) inSection = seen = true;
      continue;
    }
    if (!inSection) continue;
    const item = dialect.item(line);
    if (item !== null) {
      texts.push(item);
      open = texts.length - 1;
    } else if (line.trim() === '' || dialect.otherListItem(line)) {
      open = null;
    } else if (open !== null) {
      texts[open] = `${texts[open]} ${line.trim()}`;
    }
  }
  return numberCriteria(texts);
}

/** Removes `<!-- … -->` comments (Markdown shows none of them), in one pass. */
export function withoutHtmlComments(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const start = text.indexOf('<!--', from);
    if (start < 0) return out + text.slice(from);
    out += text.slice(from, start);
    const end = text.indexOf('-->', start + 4);
    if (end < 0) return out;
    // Keep the comment's line breaks, so lines around it stay lines.
    out += text.slice(start, end).replace(/[^\n]/g, '');
    from = end + 3;
  }
}
