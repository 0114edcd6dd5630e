import type { Platform } from './platform.js';
import type { PullRequestRef } from './pull-request-host.js';

/** A pull request as a review or a scan needs it: where its head is, and whether it is a fork's. */
export interface PullRequestState extends PullRequestRef {
  /** Commit the head branch points at. */
  headSha: string;
  /** Commit the base branch points at (GitLab `diff_refs.base_sha`, Azure DevOps the last iteration's target commit). */
  baseSha: string;
  /** GitLab `diff_refs.start_sha` (positions need it); equal to `baseSha` elsewhere. */
  startSha: string;
  /** False when the head lives in another repository (a fork). */
  sameRepository: boolean;
  /** Login / username / uniqueName of the pull request's author, when the host says. */
  author: string | null;
  /**
   * The ref in the base repository that holds the head commit, fetchable with the base
   * repository's credential, forks included: GitHub `refs/pull/N/head`, GitLab
   * `refs/merge-requests/N/head`, Azure DevOps `refs/pull/N/merge` (the host keeps no head ref).
   */
  fetchRef: string;
}

export type ChangedFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

/** One file of a pull request's diff. */
export interface PullRequestFile {
  /** Path on the new side (the old path for a deleted file). */
  path: string;
  /** The old path of a renamed file, else null. */
  previousPath: string | null;
  status: ChangedFileStatus;
  /**
   * New-side lines the change adds or modifies, ascending: the only lines an inline comment may
   * be anchored on. Empty for a deleted or binary file.
   */
  changedLines: readonly number[];
  /** The unified diff hunks of the file (null: binary, or too large for the host to show). */
  patch: string | null;
}

export interface PullRequestDiff {
  headSha: string;
  baseSha: string;
  files: readonly PullRequestFile[];
  /** The host listed fewer files than the pull request changes (its own limit); the review says so. */
  truncated: boolean;
}

/** An inline comment on the new side of the diff; `body` already carries the review's marker. */
export interface InlineComment {
  path: string;
  line: number;
  /** Last line of a multi-line comment, or null. */
  endLine: number | null;
  body: string;
}

export interface ReviewDraft {
  /** The summary (everything not anchored inline); carries the review's marker. */
  summary: string;
  comments: readonly InlineComment[];
}

export interface PostedReview {
  /** Inline comments the host accepted with their position. */
  anchored: number;
  /** Inline comments the host refused to anchor, posted as plain notes instead (GitLab). */
  unanchored: number;
  /** Earlier comments of the service's review (same marker, the token's own account) removed or replaced. */
  replaced: number;
}

/**
 * What `pr-review` and `security-scan` need from a code host beyond publishing, one
 * implementation per host (GitHub, GitLab, Azure DevOps) over TrackerHttp with the repository's
 * `auth_secret`. Failures are TrackerError with messages that never carry the credential.
 *
 * The service's own earlier comments are those that carry `marker` *and* were written by the
 * account behind the token: a marker pasted by someone else is never deleted or edited.
 */
export interface PullRequestReviews {
  readonly platform: Platform;
  /** The pull request with its head and base commits. */
  read(number: number): Promise<PullRequestState>;
  /** The changed files with their new-side changed lines, paged to the end (GitHub pull files, GitLab diffs, Azure DevOps iterations and changes). */
  diff(number: number): Promise<PullRequestDiff>;
  /**
   * Posts the review, never approving nor requesting changes (GitHub one review with
   * `event=COMMENT`; GitLab discussions with positions, a plain note where the host refuses the
   * position; Azure DevOps threads with right-file contexts), after removing the service's
   * previous review carrying `marker`, so a re-review replaces it instead of piling up.
   */
  postReview(number: number, review: ReviewDraft, marker: string): Promise<PostedReview>;
  /** One general comment carrying `marker`, replacing (editing) the service's previous one with that marker. */
  upsertComment(number: number, body: string, marker: string): Promise<void>;
}
