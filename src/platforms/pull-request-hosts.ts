import type { RepoConfig } from '../config/service-config.js';
import { AzureDevOpsPullRequestsClient } from './azure-devops/azure-devops-pull-requests.client.js';
import { GitHubPullRequestsClient } from './github/github-pull-requests.client.js';
import { GitLabMergeRequestsClient } from './gitlab/gitlab-merge-requests.client.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import { Platform } from './platform.js';
import { refusal } from './pull-request-errors.js';
import type { PullRequestHost } from './pull-request-host.js';

/**
 * The pull-request host of a configured repository, authenticated with its `auth_secret`.
 * Throws a non-retryable TrackerError naming the repository when it has no `auth_secret`, when
 * its URL is not one of the host's repository URLs, or when its platform hosts no code (Jira).
 */
export function pullRequestHostFor(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestHost {
  if (repo.platform === Platform.Jira) {
    throw refusal(repo.platform, repo.name, 'Jira hosts no code; a repository is on platform-a (GitHub), platform-b (GitLab) or platform-c (Azure DevOps)', null);
  }
  if (!repo.auth_secret) throw refusal(repo.platform, repo.name, 'auth_secret is not set', null);
  switch (repo.platform) {
    case Platform.GitHub:
      return GitHubPullRequestsClient.fromConfig(repo, http);
    case Platform.GitLab:
      return GitLabMergeRequestsClient.fromConfig(repo, http);
    case Platform.AzureDevOps:
      return AzureDevOpsPullRequestsClient.fromConfig(repo, http);
  }
}

/** TEMPORARY until the review clients land (same session): refuses. */
export function pullRequestReviewsFor(repo: RepoConfig, _http?: TrackerHttpOptions): import('./pull-request-review.js').PullRequestReviews {
  throw refusal(repo.platform, repo.name, 'pull-request reviews are not available yet', null);
}
