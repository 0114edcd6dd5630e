import { type CriteriaParse } from './criteria.js';
import { type LineDialect, sectionItems, withoutHtmlComments } from './section-items.js';

const ATX = /^ {0,3}(#{1,6})(?=[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TASK_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\](?=[ \t]|$)/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/;

/** An ATX heading's text: after the `#`s, without a closing run of `#`s. */
function atxText(line: string): string | null {
  const m = ATX.exec(line);
  if (!m) return null;
  let text = line.slice(m[0].length).trim();
  const closing = text.replace(/#+$/, '');
  if (closing === '' || /[ \t]$/.test(closing)) text = closing.trim();
  return text;
}

/** CommonMark: a fence closes on a line of at least as many of the same character. */
function fenceOf(line: string): ((line: string) => boolean) | null {
  const m = FENCE.exec(line);
  if (!m) return null;
  const marker = m[1]!;
  const char = marker[0]!;
  return (next) => {
    const t = next.trim();
    return t.length >= marker.length && t.startsWith(marker) && [...t].every((c) => c === char);
  };
}

/** Markdown (GitHub issues, GitLab issues): ATX headings, ``` / ~~~ fences, `- [ ]` task items. */
export const MARKDOWN_DIALECT: LineDialect = {
  heading: atxText,
  fenceOpen: fenceOf,
  item: (line) => {
    const m = TASK_ITEM.exec(line);
    return m ? line.slice(m[0].length) : null;
  },
  otherListItem: (line) => LIST_ITEM.test(line),
};

/** The task-list items under the "Acceptance criteria" heading of a Markdown description. */
export function parseMarkdownCriteria(description: string | null | undefined): CriteriaParse {
  return sectionItems(withoutHtmlComments(description ?? ''), MARKDOWN_DIALECT);
}
