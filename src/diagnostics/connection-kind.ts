/** The kinds of connection the diagnostics list (contract "Diagnostics"). */
export const ConnectionKind = {
  Tracker: 'tracker',
  Repository: 'repository',
  Model: 'model',
  Chat: 'chat',
  Store: 'store',
  Database: 'database',
  Sandbox: 'sandbox',
  Authority: 'authority',
} as const;
export type ConnectionKind = (typeof ConnectionKind)[keyof typeof ConnectionKind];
