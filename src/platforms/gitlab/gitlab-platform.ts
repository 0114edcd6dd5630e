import { COMMAND_COMMENT_ANSWER_ACT } from '../answer-acts.js';
import { MARKDOWN_COMMENT_MARKUP } from '../comment-markup.js';
import type { PlatformDescriptor } from '../platform-descriptor.js';
import { Platform } from '../platform.js';
import { repositoryTracker } from '../tracker-parts.js';
import { gitLabConnection } from './gitlab-connection.js';
import { gitlabCriteria } from './gitlab-criteria.js';
import { gitlabIngress } from './gitlab-ingress.js';
import { GitLabMergeRequestConversationsClient } from './gitlab-merge-request-conversations.client.js';
import { GitLabMergeRequestReviewsClient } from './gitlab-merge-request-reviews.client.js';
import { GitLabMergeRequestsClient } from './gitlab-merge-requests.client.js';
import { gitLabTicketUrl } from './gitlab-ticket-url.js';
import { GitLabTrackerClient, parseGitLabRepoUrl } from './gitlab-tracker.client.js';
import { GITLAB_TRAITS } from './gitlab-traits.js';
import { GitLabWriteAccessClient } from './gitlab-write-access.client.js';

/** Platform B: GitLab issues and merge requests. */
export const GITLAB_PLATFORM: PlatformDescriptor = {
  id: Platform.GitLab,
  product: 'GitLab',
  traits: GITLAB_TRAITS,
  ingress: gitlabIngress,
  commentMarkup: MARKDOWN_COMMENT_MARKUP,
  criteria: gitlabCriteria,
  routing: { by: 'repository-url' },
  ticketUrl: gitLabTicketUrl,
  tracker: repositoryTracker(Platform.GitLab, (url) => parseGitLabRepoUrl(url).apiBase, (repo, trigger, http) => GitLabTrackerClient.fromConfig(repo, trigger, http)),
  codeHost: {
    pullRequests: (repo, http) => GitLabMergeRequestsClient.fromConfig(repo, http),
    reviews: (repo, http) => GitLabMergeRequestReviewsClient.fromConfig(repo, http),
    connection: (repo, http) => gitLabConnection(repo, http),
    conversations: (repo, http) => GitLabMergeRequestConversationsClient.fromConfig(repo, http),
    writeAccess: { from: 'host', lookup: (repo, http) => GitLabWriteAccessClient.fromConfig(repo, http) },
    answerAct: COMMAND_COMMENT_ANSWER_ACT,
    // GitLab 19.3+: a reviewer's Request changes arrives as a merge-request update.
    updatesCarryChangeRequests: true,
  },
};
