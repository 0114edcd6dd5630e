import type { PlatformDescriptor } from '../platform-descriptor.js';
import { Platform } from '../platform.js';
import { triggerBlockTracker } from '../tracker-parts.js';
import { AZURE_DEVOPS_COMMENT_MARKUP } from './azure-devops-comment-markup.js';
import { azureDevOpsRepositoryConnection, azureDevOpsTrackerConnection } from './azure-devops-connection.js';
import { azureDevOpsCriteria } from './azure-devops-criteria.js';
import { azureDevOpsIngress } from './azure-devops-ingress.js';
import { AzureDevOpsPullRequestConversationsClient } from './azure-devops-pull-request-conversations.client.js';
import { AzureDevOpsPullRequestReviewsClient } from './azure-devops-pull-request-reviews.client.js';
import { AzureDevOpsPullRequestsClient } from './azure-devops-pull-requests.client.js';
import { azureDevOpsTicketUrl } from './azure-devops-ticket-url.js';
import { AzureDevOpsTrackerClient } from './azure-devops-tracker.client.js';
import { AZURE_DEVOPS_TRAITS } from './azure-devops-traits.js';
import { AzureDevOpsWriteAccessClient } from './azure-devops-write-access.client.js';

/** Platform C: Azure Boards work items and Azure Repos. */
export const AZURE_DEVOPS_PLATFORM: PlatformDescriptor = {
  id: Platform.AzureDevOps,
  product: 'Azure DevOps',
  traits: AZURE_DEVOPS_TRAITS,
  ingress: azureDevOpsIngress,
  commentMarkup: AZURE_DEVOPS_COMMENT_MARKUP,
  criteria: azureDevOpsCriteria,
  routing: { by: 'trigger-field', field: 'team_project', route: 'teamProject' },
  ticketUrl: azureDevOpsTicketUrl,
  tracker: triggerBlockTracker(Platform.AzureDevOps, ['organization_url', 'team_project', 'credentials'], 'organization_url',
    (trigger, http) => AzureDevOpsTrackerClient.fromConfig(trigger, http),
    'platform_c_trigger needs organization_url, team_project and credentials',
    azureDevOpsTrackerConnection),
  codeHost: {
    pullRequests: (repo, http) => AzureDevOpsPullRequestsClient.fromConfig(repo, http),
    reviews: (repo, http) => AzureDevOpsPullRequestReviewsClient.fromConfig(repo, http),
    connection: (repo, http) => azureDevOpsRepositoryConnection(repo, http),
    conversations: (repo, http) => AzureDevOpsPullRequestConversationsClient.fromConfig(repo, http),
    writeAccess: { from: 'host', lookup: (repo, http) => AzureDevOpsWriteAccessClient.fromConfig(repo, http) },
    // Azure DevOps's pull-request comments never reach the service: a change of vote does.
    answerAct: 'vote **Wait for author** (reset your vote first if it already says so: only a change of vote is sent)',
    updatesCarryChangeRequests: false,
  },
};
