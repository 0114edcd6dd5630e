import type { RepoConfig } from '../../config/service-config.js';
import { basicAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { getConnection, type PlatformConnection } from '../platform-connection.js';
import { Platform } from '../platform.js';
import { azureDevOpsRepository } from './azure-devops-pull-requests.client.js';

/** Azure DevOps tracker: `GET {organization}/_apis/connectionData`, the PAT's own identity. */
export function azureDevOpsTrackerConnection(organizationUrl: string, pat: string, http: TrackerHttpOptions): PlatformConnection {
  return getConnection(new TrackerHttp(Platform.AzureDevOps, organizationUrl, basicAuth('', pat), http), '_apis/connectionData');
}

/** Azure DevOps repository: `GET {project}/_apis/git/repositories/{repo}`. */
export function azureDevOpsRepositoryConnection(repo: RepoConfig & { auth_secret: string }, http: TrackerHttpOptions): PlatformConnection {
  const { repoPath, http: client } = azureDevOpsRepository({ repoUrl: repo.url, apiUrl: repo.api_url, pat: repo.auth_secret, http });
  return getConnection(client, repoPath, { query: { 'api-version': '7.1' } });
}
