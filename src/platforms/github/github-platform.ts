import { COMMAND_COMMENT_ANSWER_ACT } from '../answer-acts.js';
import { MARKDOWN_COMMENT_MARKUP } from '../comment-markup.js';
import type { PlatformDescriptor } from '../platform-descriptor.js';
import { Platform } from '../platform.js';
import { repositoryTracker } from '../tracker-parts.js';
import { describeAuthor } from '../write-access-lookup.js';
import { parseGitHubRepoUrl } from './github-api.js';
import { gitHubConnection } from './github-connection.js';
import { githubCriteria } from './github-criteria.js';
import { githubIngress } from './github-ingress.js';
import { GitHubPullRequestConversationsClient } from './github-pull-request-conversations.client.js';
import { GitHubPullRequestReviewsClient } from './github-pull-request-reviews.client.js';
import { GitHubPullRequestsClient } from './github-pull-requests.client.js';
import { gitHubTicketUrl } from './github-ticket-url.js';
import { GitHubTrackerClient } from './github-tracker.client.js';
import { GITHUB_TRAITS } from './github-traits.js';
import { gitHubAssociationVerdict } from './github-write-access.js';

/** Platform A: GitHub issues and repositories. */
export const GITHUB_PLATFORM: PlatformDescriptor = {
  id: Platform.GitHub,
  product: 'GitHub',
  traits: GITHUB_TRAITS,
  ingress: githubIngress,
  commentMarkup: MARKDOWN_COMMENT_MARKUP,
  criteria: githubCriteria,
  routing: { by: 'repository-url' },
  ticketUrl: gitHubTicketUrl,
  tracker: repositoryTracker(Platform.GitHub, (url) => parseGitHubRepoUrl(url).apiBase, (repo, trigger, http) => GitHubTrackerClient.fromConfig(repo, trigger, http)),
  codeHost: {
    pullRequests: (repo, http) => GitHubPullRequestsClient.fromConfig(repo, http),
    reviews: (repo, http) => GitHubPullRequestReviewsClient.fromConfig(repo, http),
    connection: (repo, http) => gitHubConnection(repo, http),
    conversations: (repo, http) => GitHubPullRequestConversationsClient.fromConfig(repo, http),
    writeAccess: { from: 'payload', verdict: (association, author) => gitHubAssociationVerdict(association, describeAuthor(author)) },
    answerAct: COMMAND_COMMENT_ANSWER_ACT,
    updatesCarryChangeRequests: false,
  },
};
