import type { PlatformTraits } from '../platform-traits.js';

export const AZURE_DEVOPS_TRAITS: PlatformTraits = {
  // Azure DevOps throttles by load rather than a fixed count: a conservative budget well under its 429s.
  writeRate: { perMinute: 200, burst: 20 },
  // Any user name goes with a personal access token.
  gitUsername: 'pipeline-service',
  conditionalLabelWrites: true,
  statusesAreLabels: false,
  labelEventsCarryAllLabels: false,
  ticketReference: 'number',
};
