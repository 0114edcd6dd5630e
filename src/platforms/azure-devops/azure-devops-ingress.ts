import type { PlatformIngress } from '../platform-ingress.js';
import { Platform } from '../platform.js';
import { azureDevOpsDeliveryId, azureDevOpsEventName, isServiceHookEnvelope } from './azure-devops-delivery.js';
import { parseAzureDevOpsPayload } from './azure-devops-payload-parser.js';
import { verifyAzureDevOpsBasicAuth } from './azure-devops-signature.js';

export const azureDevOpsIngress: PlatformIngress = {
  platform: Platform.AzureDevOps,
  // azureDevOpsEventName takes (body, headers); the receiver calls eventName(headers, body).
  eventName: (headers, body) => azureDevOpsEventName(body, headers),
  deliveryId: (_headers, body) => azureDevOpsDeliveryId(body),
  parse: parseAzureDevOpsPayload,
  secretFor: (config) => config.webhooks.platform_c_secret,
  verify: verifyAzureDevOpsBasicAuth,
  detection: { by: 'envelope', matches: (_headers, body) => isServiceHookEnvelope(body) },
};
