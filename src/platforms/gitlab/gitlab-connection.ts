import type { RepoConfig } from '../../config/service-config.js';
import type { TrackerHttpOptions } from '../http/tracker-http.js';
import { getConnection, type PlatformConnection } from '../platform-connection.js';
import { gitLabProject } from './gitlab-merge-requests.client.js';

/** GitLab: `GET /projects/:path` with the repository's `auth_secret` (the tracker is the project's issues). */
export function gitLabConnection(repo: RepoConfig & { auth_secret: string }, http: TrackerHttpOptions): PlatformConnection {
  const { projectPath, http: client } = gitLabProject({ repoUrl: repo.url, apiUrl: repo.api_url, token: repo.auth_secret, http });
  return getConnection(client, projectPath);
}
