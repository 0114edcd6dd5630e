import type { PlatformIngress } from '../platform-ingress.js';
import { Platform } from '../platform.js';
import { gitlabDeliveryId, gitlabEventName } from './gitlab-delivery.js';
import { parseGitLabPayload } from './gitlab-payload-parser.js';
import { verifyGitLabToken } from './gitlab-signature.js';

export const gitlabIngress: PlatformIngress = {
  platform: Platform.GitLab,
  eventName: (headers) => gitlabEventName(headers),
  deliveryId: (headers) => gitlabDeliveryId(headers),
  parse: parseGitLabPayload,
  secretFor: (config) => config.webhooks.platform_b_secret,
  verify: verifyGitLabToken,
  detection: { by: 'event-header', matches: (headers) => gitlabEventName(headers) !== null },
};
