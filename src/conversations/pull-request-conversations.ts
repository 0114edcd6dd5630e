import type { Platform } from '../platforms/platform.js';
import type { DiscussionItem } from './run-conversation.js';

/**
 * What conversations (commands, rework, hand-backs) need from a code host beyond publishing and
 * reviewing, one implementation per host (GitHub, GitLab, Azure DevOps) over TrackerHttp with the
 * repository's `auth_secret`. Failures are TrackerError with messages that never carry the credential.
 */
export interface PullRequestConversations {
  readonly platform: Platform;
  /** The account behind the token (GitHub/GitLab `GET /user` login/username, Azure DevOps authenticated user's uniqueName). */
  self(): Promise<string>;
  /**
   * Every comment on the pull request, oldest first, paged to the end: GitHub issue comments,
   * review comments (inline, with their review thread and its resolution) and review bodies;
   * GitLab notes of every discussion (system notes flagged); Azure DevOps thread comments (a
   * thread is resolved unless its status is active or pending; system comments flagged).
   */
  discussion(number: number): Promise<DiscussionItem[]>;
  /**
   * GitLab only: the reviewer's current review state on the merge request (`requested_changes`,
   * `approved`, `reviewed`, `unreviewed`, …) from the merge-request reviewers API, or null when
   * the user is not a reviewer. Other hosts do not implement it.
   */
  reviewerState?(number: number, username: string): Promise<string | null>;
}
