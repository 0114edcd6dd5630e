import type { PlatformIngress } from '../platform-ingress.js';
import { Platform } from '../platform.js';
import { jiraDeliveryId, jiraEventName } from './jira-delivery.js';
import { parseJiraPayload } from './jira-payload-parser.js';
import { jiraSecretFor } from './jira-secret.js';
import { verifyJiraSignature } from './jira-signature.js';

/** Jira keeps its secret per project (`platform_d_trigger.secret`): see `jiraSecretFor`. */
export const jiraIngress: PlatformIngress = {
  platform: Platform.Jira,
  eventName: (_headers, body) => jiraEventName(body),
  deliveryId: (headers) => jiraDeliveryId(headers),
  parse: parseJiraPayload,
  secretFor: jiraSecretFor,
  verify: verifyJiraSignature,
};
