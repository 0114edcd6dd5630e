import type { RepoConfig } from '../config/service-config.js';
import type { PullRequestConversations } from '../conversations/pull-request-conversations.js';
import { AzureDevOpsPullRequestConversationsClient } from './azure-devops/azure-devops-pull-request-conversations.client.js';
import { AzureDevOpsPullRequestReviewsClient } from './azure-devops/azure-devops-pull-request-reviews.client.js';
import { AzureDevOpsPullRequestsClient } from './azure-devops/azure-devops-pull-requests.client.js';
import { GitHubPullRequestConversationsClient } from './github/github-pull-request-conversations.client.js';
import { GitHubPullRequestReviewsClient } from './github/github-pull-request-reviews.client.js';
import { GitHubPullRequestsClient } from './github/github-pull-requests.client.js';
import { GitLabMergeRequestConversationsClient } from './gitlab/gitlab-merge-request-conversations.client.js';
import { GitLabMergeRequestReviewsClient } from './gitlab/gitlab-merge-request-reviews.client.js';
import { GitLabMergeRequestsClient } from './gitlab/gitlab-merge-requests.client.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import { Platform } from './platform.js';
import { refusal } from './pull-request-errors.js';
import type { PullRequestHost } from './pull-request-host.js';
import type { PullRequestReviews } from './pull-request-review.js';

/**
 * The pull-request host of a configured repository, authenticated with its `auth_secret`.
 * Throws a non-retryable TrackerError naming the repository when it has no `auth_secret`, when
 * its URL is not one of the host's repository URLs, or when its platform hosts no code (Jira).
 */
export function pullRequestHostFor(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestHost {
  switch (codePlatformOf(repo)) {
    case Platform.GitHub:
      return GitHubPullRequestsClient.fromConfig(repo, http);
    case Platform.GitLab:
      return GitLabMergeRequestsClient.fromConfig(repo, http);
    case Platform.AzureDevOps:
      return AzureDevOpsPullRequestsClient.fromConfig(repo, http);
  }
}

/** The review API of a configured repository's host, with the same refusals as pullRequestHostFor. */
export function pullRequestReviewsFor(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestReviews {
  switch (codePlatformOf(repo)) {
    case Platform.GitHub:
      return GitHubPullRequestReviewsClient.fromConfig(repo, http);
    case Platform.GitLab:
      return GitLabMergeRequestReviewsClient.fromConfig(repo, http);
    case Platform.AzureDevOps:
      return AzureDevOpsPullRequestReviewsClient.fromConfig(repo, http);
  }
}

/** What conversations read on a configured repository's host, with the same refusals as pullRequestHostFor. */
export function pullRequestConversationsFor(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestConversations {
  switch (codePlatformOf(repo)) {
    case Platform.GitHub:
      return GitHubPullRequestConversationsClient.fromConfig(repo, http);
    case Platform.GitLab:
      return GitLabMergeRequestConversationsClient.fromConfig(repo, http);
    case Platform.AzureDevOps:
      return AzureDevOpsPullRequestConversationsClient.fromConfig(repo, http);
  }
}

type CodePlatform = Exclude<Platform, typeof Platform.Jira>;

function codePlatformOf(repo: RepoConfig): CodePlatform {
  if (repo.platform === Platform.Jira) {
    throw refusal(repo.platform, repo.name, 'Jira hosts no code; a repository is on platform-a (GitHub), platform-b (GitLab) or platform-c (Azure DevOps)', null);
  }
  if (!repo.auth_secret) throw refusal(repo.platform, repo.name, 'auth_secret is not set', null);
  return repo.platform;
}
