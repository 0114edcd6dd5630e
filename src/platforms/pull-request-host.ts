import type { Platform } from './platform.js';

/** A pull request (GitHub), merge request (GitLab) or pull request (Azure DevOps) as the service sees it. */
export interface PullRequestRef {
  /** GitHub number, GitLab iid, Azure DevOps pullRequestId. */
  number: number;
  /** Web page of the pull request (not its API URL). */
  url: string;
  state: 'open' | 'merged' | 'closed';
  title: string;
  body: string;
  /** Head (source) branch, without `refs/heads/`. */
  head: string;
  /** Base (target) branch, without `refs/heads/`. */
  base: string;
}

export interface PullRequestDraft {
  head: string;
  base: string;
  title: string;
  body: string;
}

/**
 * What publishing needs from a code host, one implementation per host (GitHub, GitLab, Azure
 * DevOps), each a thin `fetch` client over TrackerHttp with the repository's `auth_secret`.
 * Failures are TrackerError (status, retryable) with messages that never carry the credential.
 */
export interface PullRequestHost {
  readonly platform: Platform;
  /** The repository's default branch from the host API (without `refs/heads/`). */
  defaultBranch(): Promise<string>;
  /** The open pull request from `head` into `base`, or null. */
  findOpen(head: string, base: string): Promise<PullRequestRef | null>;
  /**
   * Opens the pull request. When the host answers that one already exists for the head (GitHub
   * 422, GitLab 409, Azure DevOps 409 TF401179) the existing open one is returned instead.
   */
  create(draft: PullRequestDraft): Promise<{ pullRequest: PullRequestRef; created: boolean }>;
  /** Replaces title and body of an open pull request. */
  update(number: number, change: { title: string; body: string }): Promise<PullRequestRef>;
}
