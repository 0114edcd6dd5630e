import type { CommentMarkup } from '../comment-markup.js';

/** Text for an HTML body (Azure DevOps comments). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** HTML, as Azure DevOps stores work item and pull-request comments. */
export const AZURE_DEVOPS_COMMENT_MARKUP: CommentMarkup = {
  text: escapeHtml,
  strong: (inline) => `<b>${inline}</b>`,
  italic: (inline) => `<i>${inline}</i>`,
  code: (s) => `<code>${escapeHtml(s)}</code>`,
  link: (url) => `<a href="${escapeHtml(url).replace(/"/g, '&quot;')}">${escapeHtml(url)}</a>`,
  paragraph: (inline) => `<p>${inline}</p>`,
  preformatted: (s) => `<pre>${escapeHtml(s)}</pre>`,
  list: (items) => ['<ul>', ...items.map((i) => `<li>${i}</li>`), '</ul>'].join('\n'),
  blocks: (blocks) => blocks.join('\n'),
};
