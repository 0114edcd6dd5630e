import type { PlatformTraits } from '../platform-traits.js';

export const GITHUB_TRAITS: PlatformTraits = {
  // GitHub documents about 80 content-creating requests a minute (secondary limit) per token.
  writeRate: { perMinute: 80, burst: 10 },
  gitUsername: 'x-access-token',
  conditionalLabelWrites: true,
  statusesAreLabels: true,
  labelEventsCarryAllLabels: false,
  ticketReference: 'number',
};
