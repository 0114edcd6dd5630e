import type { PlatformIngress } from '../platform-ingress.js';
import { Platform } from '../platform.js';
import { githubDeliveryId, githubEventName } from './github-delivery.js';
import { parseGitHubPayload } from './github-payload-parser.js';
import { verifyGitHubSignature } from './github-signature.js';

export const githubIngress: PlatformIngress = {
  platform: Platform.GitHub,
  eventName: (headers) => githubEventName(headers),
  deliveryId: (headers) => githubDeliveryId(headers),
  parse: parseGitHubPayload,
  secretFor: (config) => config.webhooks.platform_a_secret,
  verify: verifyGitHubSignature,
  detection: { by: 'event-header', matches: (headers) => githubEventName(headers) !== null },
};
