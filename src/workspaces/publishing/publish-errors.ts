import { TrackerError } from '../../platforms/tracker-client.js';
import { WorkspaceError, WorkspaceErrorKind } from '../git/workspace-error.js';

/**
 * A failure of one repository's fetch, push or pull request as a run's error: which repository,
 * what happened and what to do about it. Messages from git and the hosts are already free of
 * credentials (both layers redact); this only adds the advice.
 */
export function describeRepositoryFailure(repo: string, what: string, error: unknown): string {
  if (error instanceof WorkspaceError) {
    return `repository ${repo}: ${what} failed: ${error.message}${adviceFor(error.kind, repo)}`;
  }
  if (error instanceof TrackerError) {
    const advice = error.status === 401 || error.status === 403
      ? ` — check that the auth_secret of repository ${repo} is valid and may open pull requests`
      : error.retryable ? ' — the host did not answer; the next run tries again' : '';
    return `repository ${repo}: ${what} failed: the host answered ${error.status ?? 'nothing'}: ${error.message}${advice}`;
  }
  return `repository ${repo}: ${what} failed: ${(error as Error).message}`;
}

function adviceFor(kind: WorkspaceErrorKind, repo: string): string {
  switch (kind) {
    case WorkspaceErrorKind.Credentials:
      return ` — the host refused the credentials: check that the auth_secret of repository ${repo} is valid and may read and push`;
    case WorkspaceErrorKind.Unreachable:
      return ` — check the repository's url and that the server can reach its host`;
    case WorkspaceErrorKind.Diverged:
      return ' — the work branch changed on the remote during the run; the next run starts from its new tip';
    case WorkspaceErrorKind.Protected:
      return ' — the host protects the work branch: allow the service to push to service/* branches';
    default:
      return '';
  }
}
