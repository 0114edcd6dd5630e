import type { PlatformDescriptor } from '../platform-descriptor.js';
import { Platform } from '../platform.js';
import { triggerBlockTracker } from '../tracker-parts.js';
import { JIRA_COMMENT_MARKUP } from './jira-comment-markup.js';
import { jiraConnection } from './jira-connection.js';
import { jiraCriteria } from './jira-criteria.js';
import { jiraIngress } from './jira-ingress.js';
import { jiraTicketUrl } from './jira-ticket-url.js';
import { JiraTrackerClient } from './jira-tracker.client.js';
import { JIRA_TRAITS } from './jira-traits.js';

/** Platform D: Jira issues; it hosts no code. */
export const JIRA_PLATFORM: PlatformDescriptor = {
  id: Platform.Jira,
  product: 'Jira',
  traits: JIRA_TRAITS,
  ingress: jiraIngress,
  commentMarkup: JIRA_COMMENT_MARKUP,
  criteria: jiraCriteria,
  routing: { by: 'trigger-field', field: 'project_key', route: 'projectKey' },
  ticketUrl: jiraTicketUrl,
  tracker: triggerBlockTracker(Platform.Jira, ['site_url', 'credentials'], 'site_url',
    (trigger, http) => JiraTrackerClient.fromConfig(trigger, http),
    'platform_d_trigger needs site_url and credentials',
    jiraConnection),
  codeHost: null,
};
