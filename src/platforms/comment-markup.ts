/**
 * How a tracker writes a comment: Markdown (GitHub, GitLab), HTML (Azure DevOps), wiki markup
 * (Jira). The service's ticket comments (failure, hand-back, pull requests) are composed from
 * these pieces, so they say the same thing on every tracker and name none; each platform's
 * folder says how its tracker spells them.
 */
export interface CommentMarkup {
  /** Plain text made safe as inline text (escaped where the markup needs it). */
  text(s: string): string;
  /** Inline: already-formatted inline content in bold. */
  strong(inline: string): string;
  /** Inline: already-formatted inline content in italics. */
  italic(inline: string): string;
  /** Inline: plain text as code. */
  code(s: string): string;
  /** Inline: a URL as a link showing itself. */
  link(url: string): string;
  /** A block: inline content as a paragraph. */
  paragraph(inline: string): string;
  /** A block: plain text shown as is (nothing in it renders: no mentions, links or markup). */
  preformatted(s: string): string;
  /** A block: inline items as a bulleted list. */
  list(items: readonly string[]): string;
  /** Blocks one after the other. */
  blocks(blocks: readonly string[]): string;
}

/** The longest run of `char` in `text` (a Markdown fence must be longer). */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    longest = Math.max(longest, current);
  }
  return longest;
}

/** Markdown, as GitHub and GitLab render comments. */
export const MARKDOWN_COMMENT_MARKUP: CommentMarkup = {
  text: (s) => s,
  strong: (inline) => `**${inline}**`,
  italic: (inline) => `_${inline}_`,
  code: (s) => `\`${s}\``,
  link: (url) => url,
  paragraph: (inline) => inline,
  preformatted: (s) => {
    const fence = '`'.repeat(Math.max(3, longestRun(s, '`') + 1));
    return `${fence}text\n${s}\n${fence}`;
  },
  list: (items) => items.map((i) => `- ${i}`).join('\n'),
  blocks: (blocks) => blocks.join('\n\n'),
};
