/** The branch a ticket's runs work on (contract): `service/<ticket>`, unsafe characters as `-`. */
export function workBranchName(ticket: string): string {
  return `service/${ticket.replace(/[^A-Za-z0-9._-]/g, '-')}`;
}
