import type { CommentMarkup } from '../comment-markup.js';

/** Jira's wiki markup, as the client posts comments (REST v2). */
export const JIRA_COMMENT_MARKUP: CommentMarkup = {
  text: (s) => s,
  strong: (inline) => `*${inline}*`,
  italic: (inline) => `_${inline}_`,
  code: (s) => `{{${s}}}`,
  link: (url) => `[${url}]`,
  paragraph: (inline) => inline,
  // A `{noformat}` inside the text would end the block: it is broken up.
  preformatted: (s) => `{noformat}\n${s.replace(/\{noformat\}/gi, '{ noformat }')}\n{noformat}`,
  list: (items) => items.map((i) => `* ${i}`).join('\n'),
  blocks: (blocks) => blocks.join('\n'),
};
