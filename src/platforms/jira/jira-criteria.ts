import { type CriteriaParse, type TicketCriteriaFormat, isCriteriaHeading } from '../../criteria/criteria.js';
import { MARKDOWN_DIALECT } from '../../criteria/markdown-criteria.js';
import { type LineDialect, sectionItems } from '../../criteria/section-items.js';

/**
 * Jira issues. The tracker client reads REST v2, whose description is wiki markup (a v3 Atlassian
 * Document Format one is converted to text by adf-to-text.ts, where headings are `# …`, action
 * items `[ ] …` and bullets `- …`). Jira has no task list in wiki markup, so under the heading
 * every list item counts: `*`, `-` and `#` items (with an optional `[ ]`), and in converted ADF
 * also `[ ]` action items. A heading is `h1.`–`h6.` (wiki) or `#` (converted ADF); a line that is
 * only bold text (`*Notes*`) counts as one, and so does a line saying only "Acceptance criteria"
 * (`Acceptance Criteria:`), as Jira users write them that way (ADF's conversion drops the bold).
 */
const WIKI_HEADING = /^[ \t]*h[1-6]\.[ \t]+/;
const WIKI_ITEM = /^[ \t]*[-*#]{1,6}[ \t]+(?:\[[ xX]?\][ \t]+)?/;
const ADF_ITEM = /^[ \t]*(?:(?:[-*]|\d{1,9}\.)[ \t]+)?\[[ xX]\](?=[ \t]|$)|^[ \t]*(?:[-*]|\d{1,9}\.)[ \t]+/;
const WIKI_ESCAPED = /\\([\\{}[\]|*_#-])/g;

/** `*text*` alone on a line: Jira users' heading. */
function boldLine(line: string): string | null {
  const t = line.trim();
  return t.length > 2 && t.startsWith('*') && t.endsWith('*') && !t.startsWith('* ') ? t.slice(1, -1) : null;
}

/** A heading by markup, else a bold line, else a line that is only the criteria heading's name. */
function headingOf(markup: string | null, line: string): string | null {
  return markup ?? boldLine(line) ?? (isCriteriaHeading(line) ? line.trim() : null);
}

/** `{code}` / `{noformat}` blocks: a line that opens one without closing it on the same line. */
function wikiFence(line: string): ((line: string) => boolean) | null {
  const m = /\{(code|noformat)(?::[^}]{0,200})?\}/.exec(line);
  if (!m) return null;
  const tag = `{${m[1]}}`;
  if (line.indexOf(tag, m.index + m[0].length) >= 0) return null; // opened and closed on one line
  return (next) => next.includes(tag);
}

const WIKI_DIALECT: LineDialect = {
  heading: (line) => headingOf(WIKI_HEADING.test(line) ? line.replace(WIKI_HEADING, '') : null, line),
  fenceOpen: wikiFence,
  item: (line) => {
    if (boldLine(line) !== null) return null;
    const m = WIKI_ITEM.exec(line);
    return m ? line.slice(m[0].length).replace(WIKI_ESCAPED, '$1') : null;
  },
  otherListItem: () => false,
};

const ADF_TEXT_DIALECT: LineDialect = {
  heading: (line) => headingOf(MARKDOWN_DIALECT.heading(line), line),
  fenceOpen: MARKDOWN_DIALECT.fenceOpen,
  item: (line) => {
    const m = ADF_ITEM.exec(line);
    return m ? line.slice(m[0].length) : null;
  },
  otherListItem: () => false,
};

/** Wiki when the text uses wiki headings or blocks, else the converted-ADF form. */
function parseJiraCriteria(description: string | null): CriteriaParse {
  const text = description ?? '';
  const wiki = /(?:^|\n)[ \t]*h[1-6]\.[ \t]|\{code|\{noformat/.test(text);
  const first = sectionItems(text, wiki ? WIKI_DIALECT : ADF_TEXT_DIALECT);
  return first.criteria.length > 0 ? first : sectionItems(text, wiki ? ADF_TEXT_DIALECT : WIKI_DIALECT);
}

/** A description in ADF (REST v3, converted to text) or wiki markup (REST v2). */
export const jiraCriteria: TicketCriteriaFormat = {
  parse: (source) => parseJiraCriteria(source.description),
};
