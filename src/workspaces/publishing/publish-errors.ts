import { TrackerError } from '../../platforms/tracker-client.js';
import { WorkspaceError } from '../git/workspace-error.js';

/**
 * A failure of one repository's fetch, push or pull request as a run's error: which repository,
 * what happened and what to do about it. Messages from git and the hosts are already free of
 * credentials (both layers redact).
 */
export function describeRepositoryFailure(repo: string, what: string, error: unknown): string {
  // The git layer's errors already name the repository, the action and the advice.
  if (error instanceof WorkspaceError) return error.message;
  if (error instanceof TrackerError) {
    const advice = error.status === 401 || error.status === 403
      ? ` — check that the auth_secret of repository ${repo} is valid and may open pull requests`
      : error.retryable ? ` — check the repository's api_url and that the server can reach the host, then run the ticket again` : '';
    // The clients' messages already name the repository (`platform-a: repository X: …`).
    const said = error.message.includes(`repository ${repo}`) ? error.message : `repository ${repo}: ${error.message}`;
    return `${what} failed: the host answered ${error.status ?? 'nothing'}: ${said}${advice}`;
  }
  return `repository ${repo}: ${what} failed: ${(error as Error).message}`;
}
