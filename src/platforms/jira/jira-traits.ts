import type { PlatformTraits } from '../platform-traits.js';

export const JIRA_TRAITS: PlatformTraits = {
  // Jira Cloud throttles by load rather than a fixed count: a conservative budget well under its 429s.
  writeRate: { perMinute: 100, burst: 10 },
  gitUsername: 'x-access-token',
  // Jira's label edits carry no version: one ticket's label writes are serialised by a lock.
  conditionalLabelWrites: false,
  statusesAreLabels: false,
  labelEventsCarryAllLabels: false,
  ticketReference: 'key',
};
