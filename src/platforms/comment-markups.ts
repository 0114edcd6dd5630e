import { type CommentMarkup, MARKDOWN_COMMENT_MARKUP } from './comment-markup.js';
import { platformOf } from './platform-registry.js';

/** How `platform`'s tracker writes a comment (Markdown for one the service does not know). */
export function commentMarkupFor(platform: string): CommentMarkup {
  return platformOf(platform)?.commentMarkup ?? MARKDOWN_COMMENT_MARKUP;
}
