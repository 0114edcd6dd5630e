/**
 * What went wrong with a repository's remote, in terms a user can act on. `unreachable`: network,
 * DNS, TLS or 5xx; `credentials`: the host refused the auth_secret (401/403); `not-found`: no such
 * repository or branch; `diverged`: the work branch moved on the remote (a push that is not a
 * fast-forward); `protected`: the host's hooks or branch protection declined the push; `failed`:
 * anything else (the message says what git said, secrets scrubbed).
 */
export const WorkspaceErrorKind = {
  Unreachable: 'unreachable',
  Credentials: 'credentials',
  NotFound: 'not-found',
  Diverged: 'diverged',
  Protected: 'protected',
  Failed: 'failed',
} as const;
export type WorkspaceErrorKind = (typeof WorkspaceErrorKind)[keyof typeof WorkspaceErrorKind];

export class WorkspaceError extends Error {
  override readonly name = 'WorkspaceError';
  constructor(
    readonly kind: WorkspaceErrorKind,
    message: string,
  ) {
    super(message);
  }
}
