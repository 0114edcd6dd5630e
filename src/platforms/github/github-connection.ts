import type { RepoConfig } from '../../config/service-config.js';
import type { TrackerHttpOptions } from '../http/tracker-http.js';
import { getConnection, type PlatformConnection } from '../platform-connection.js';
import { API_HEADERS } from './github-api.js';
import { gitHubRepository } from './github-pull-requests.client.js';

/**
 * GitHub: `GET /repos/:owner/:repo` with the repository's `auth_secret`. The tracker of a GitHub
 * project is its repository's issues, so both the tracker and the repository are probed there
 * (an installation token cannot read `GET /user`, a repository it can).
 */
export function gitHubConnection(repo: RepoConfig & { auth_secret: string }, http: TrackerHttpOptions): PlatformConnection {
  const { repoPath, http: client } = gitHubRepository({ repoUrl: repo.url, apiUrl: repo.api_url, token: repo.auth_secret, http });
  return getConnection(client, repoPath, { headers: API_HEADERS });
}
