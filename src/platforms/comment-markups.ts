import { AZURE_DEVOPS_COMMENT_MARKUP } from './azure-devops/azure-devops-comment-markup.js';
import { type CommentMarkup, MARKDOWN_COMMENT_MARKUP } from './comment-markup.js';
import { JIRA_COMMENT_MARKUP } from './jira/jira-comment-markup.js';
import { Platform } from './platform.js';

/** Each tracker's comment markup, by platform. */
const MARKUPS: Readonly<Record<Platform, CommentMarkup>> = {
  [Platform.GitHub]: MARKDOWN_COMMENT_MARKUP,
  [Platform.GitLab]: MARKDOWN_COMMENT_MARKUP,
  [Platform.AzureDevOps]: AZURE_DEVOPS_COMMENT_MARKUP,
  [Platform.Jira]: JIRA_COMMENT_MARKUP,
};

/** How `platform`'s tracker writes a comment (Markdown for one the service does not know). */
export function commentMarkupFor(platform: string): CommentMarkup {
  return MARKUPS[platform as Platform] ?? MARKDOWN_COMMENT_MARKUP;
}
