import type { PlatformIngress } from '../platform-ingress.js';
import { Platform } from '../platform.js';
import { jiraDeliveryId, jiraEventName } from './jira-delivery.js';
import { parseJiraPayload } from './jira-payload-parser.js';
import { verifyJiraSignature } from './jira-signature.js';

/**
 * Jira keeps its secret per project (`platform_d_trigger.secret`); `webhooks.platform_d_secret`
 * (PLATFORM_D_WEBHOOK_SECRET) applies to projects without one and to deliveries that route nowhere.
 */
export const jiraIngress: PlatformIngress = {
  platform: Platform.Jira,
  eventName: (_headers, body) => jiraEventName(body),
  deliveryId: (headers) => jiraDeliveryId(headers),
  parse: parseJiraPayload,
  secretFor: (config, project) =>
    (project ? config.projects[project]?.triggers[Platform.Jira]?.secret : null) ?? config.webhooks.platform_d_secret,
  verify: verifyJiraSignature,
};
