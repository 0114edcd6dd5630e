import type { Platform } from '../platforms/platform.js';

/** A ticket is named by its tracker, the project it routes to and its id there. */
export interface TicketKey {
  platform: Platform;
  project: string;
  ticket: string;
}

export function describeTicket(key: TicketKey): string {
  return `${key.project}/${key.ticket} (${key.platform})`;
}
