import type { RepoConfig } from '../../config/service-config.js';
import { traitsOf } from '../../platforms/platform-traits.registry.js';

/** HTTP Basic credentials git sends to a repository's host; only ever passed through the environment. */
export interface GitCredential {
  username: string;
  password: string;
}

/**
 * The repository's `auth_secret` as the host expects it over smart HTTP: GitHub
 * `x-access-token:<token>`, GitLab `oauth2:<token>`, Azure DevOps any user name with the PAT.
 * Null when no secret is configured (the caller refuses to clone or push: nothing anonymous).
 */
export function gitCredentialFor(repo: RepoConfig): GitCredential | null {
  if (!repo.auth_secret) return null;
  return { username: traitsOf(repo.platform).gitUsername, password: repo.auth_secret };
}
