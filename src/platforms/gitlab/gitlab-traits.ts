import type { PlatformTraits } from '../platform-traits.js';

export const GITLAB_TRAITS: PlatformTraits = {
  // GitLab.com throttles by load rather than a fixed count: a conservative budget well under its 429s.
  writeRate: { perMinute: 300, burst: 20 },
  gitUsername: 'oauth2',
  conditionalLabelWrites: true,
  statusesAreLabels: true,
  labelEventsCarryAllLabels: true,
  ticketReference: 'number',
};
