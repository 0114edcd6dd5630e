import type { RepoConfig } from '../config/service-config.js';
import type { PullRequestConversations } from '../conversations/pull-request-conversations.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import type { CodeHostPart } from './platform-descriptor.js';
import { platformOf, registeredPlatforms } from './platform-registry.js';
import { refusal } from './pull-request-errors.js';
import type { PullRequestHost } from './pull-request-host.js';
import type { PullRequestReviews } from './pull-request-review.js';

/**
 * The pull-request host of a configured repository, authenticated with its `auth_secret`.
 * Throws a non-retryable TrackerError naming the repository when it has no `auth_secret`, when
 * its URL is not one of the host's repository URLs, or when its platform hosts no code (Jira).
 */
export function pullRequestHostFor(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestHost {
  return codeHostOf(repo).pullRequests(repo, http);
}

/** The review API of a configured repository's host, with the same refusals as pullRequestHostFor. */
export function pullRequestReviewsFor(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestReviews {
  return codeHostOf(repo).reviews(repo, http);
}

/** What conversations read on a configured repository's host, with the same refusals as pullRequestHostFor. */
export function pullRequestConversationsFor(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestConversations {
  return codeHostOf(repo).conversations(repo, http);
}

/** The code host of a repository's platform, refusing a platform that hosts none or a repository without a token. */
export function codeHostOf(repo: RepoConfig): CodeHostPart {
  const descriptor = platformOf(repo.platform);
  if (!descriptor?.codeHost) {
    const product = descriptor?.product ?? repo.platform;
    throw refusal(repo.platform, repo.name, `${product} hosts no code; a repository is on ${codeHostList()}`, null);
  }
  if (!repo.auth_secret) throw refusal(repo.platform, repo.name, 'auth_secret is not set', null);
  return descriptor.codeHost;
}

/** `platform-a (GitHub), platform-b (GitLab) or platform-c (Azure DevOps)`, from the registry. */
export function codeHostList(): string {
  const hosts = registeredPlatforms().filter((d) => d.codeHost).map((d) => `${d.id} (${d.product})`);
  return hosts.length < 2 ? hosts.join('') : `${hosts.slice(0, -1).join(', ')} or ${hosts[hosts.length - 1]}`;
}
