import type { RepoConfig } from '../../config/service-config.js';
import { WorkspaceError, WorkspaceErrorKind } from './workspace-error.js';

/**
 * The repository's URL as git is given it: http(s) only (credentials are HTTP Basic), and without
 * a user name or password in it, which git would store in configs and print in messages. The
 * credential is the repository's `auth_secret`, passed separately.
 */
export function cloneUrlOf(repo: RepoConfig): string {
  let url: URL;
  try {
    url = new URL(repo.url);
  } catch {
    throw new WorkspaceError(WorkspaceErrorKind.Failed, `repository ${repo.name}: its url is not a valid URL: set it to the repository's https web address`);
  }
  if (url.username || url.password) {
    throw new WorkspaceError(
      WorkspaceErrorKind.Credentials,
      `repository ${repo.name}: its url carries a user name or password: remove the "user@" part from the url and configure the token as the repository's auth_secret`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WorkspaceError(WorkspaceErrorKind.Failed, `repository ${repo.name}: its url uses ${url.protocol.replace(':', '')}, the service clones over https only: set the repository's https web address`);
  }
  return repo.url;
}
