import type { ProjectConfig, RepoConfig } from '../config/service-config.js';
import { azureDevOpsRepositoryConnection, azureDevOpsTrackerConnection } from './azure-devops/azure-devops-connection.js';
import { gitHubConnection } from './github/github-connection.js';
import { gitLabConnection } from './gitlab/gitlab-connection.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import { jiraConnection } from './jira/jira-connection.js';
import { Platform } from './platform.js';
import type { PlatformConnection, UnconfiguredConnection } from './platform-connection.js';

export type { PlatformConnection, UnconfiguredConnection } from './platform-connection.js';

/** What a diagnostics probe asks of the HTTP layer: one try, its own timeout, not reported as normal work. */
export function probeHttp(timeoutMs: number): TrackerHttpOptions {
  return { maxAttempts: 1, timeoutMs, observe: false, userAgent: 'pipeline-service (diagnostics probe)' };
}

/**
 * A project's ticket tracker as a connection: GitHub and GitLab through the project's repository
 * on that platform (its `auth_secret`), Azure DevOps and Jira through the trigger block
 * (`organization_url` / `site_url` and `credentials`).
 */
export function trackerConnectionOf(project: ProjectConfig, http: TrackerHttpOptions): PlatformConnection | UnconfiguredConnection {
  const platform = project.tracker;
  const trigger = project.triggers[platform];
  return guarded(() => {
    switch (platform) {
      case Platform.GitHub:
      case Platform.GitLab: {
        const repo = project.repos.find((r) => r.platform === platform);
        if (!repo) return { unconfigured: `no ${platform} repository declared for its tickets`, target: null };
        return repositoryConnectionOf(repo, http);
      }
      case Platform.AzureDevOps: {
        const url = trigger?.organization_url ?? null;
        if (!url || !trigger?.team_project || !trigger.credentials) return { unconfigured: 'platform_c_trigger needs organization_url, team_project and credentials', target: url };
        return azureDevOpsTrackerConnection(url, trigger.credentials, http);
      }
      case Platform.Jira: {
        const url = trigger?.site_url ?? null;
        if (!url || !trigger?.credentials) return { unconfigured: 'platform_d_trigger needs site_url and credentials', target: url };
        return jiraConnection(url, trigger.credentials, http);
      }
    }
  });
}

/** A configured repository's code host as a connection (its API with its `auth_secret`). */
export function repositoryConnectionOf(repo: RepoConfig, http: TrackerHttpOptions): PlatformConnection | UnconfiguredConnection {
  return guarded(() => {
    const secret = repo.auth_secret;
    if (repo.platform === Platform.Jira) return { unconfigured: 'Jira hosts no code', target: repo.url };
    if (!secret) return { unconfigured: `repository ${repo.name} has no auth_secret`, target: repo.api_url ?? repo.url };
    const withSecret = { ...repo, auth_secret: secret };
    switch (repo.platform) {
      case Platform.GitHub:
        return gitHubConnection(withSecret, http);
      case Platform.GitLab:
        return gitLabConnection(withSecret, http);
      case Platform.AzureDevOps:
        return azureDevOpsRepositoryConnection(withSecret, http);
    }
  });
}

/**
 * A connection described by a person before it is saved (the dashboard's "Add project"):
 * `tracker` or `repository` on a platform, at `url` (GitHub, GitLab, Azure DevOps repository:
 * the repository's web URL; Azure DevOps tracker: the organization URL; Jira: the site URL),
 * with `token` (Jira: `user:api-token` or a Data Center PAT). Built exactly as a configured one
 * is, so a candidate that probes ok works the same once saved.
 */
export interface CandidateConnection {
  kind: 'tracker' | 'repository';
  platform: Platform;
  url: string;
  api_url: string | null;
  token: string;
}

export function candidateConnectionOf(candidate: CandidateConnection, http: TrackerHttpOptions): PlatformConnection | UnconfiguredConnection {
  const { kind, platform, url, api_url, token } = candidate;
  if (kind === 'tracker' && platform === Platform.AzureDevOps) return guarded(() => azureDevOpsTrackerConnection(url, token, http));
  if (kind === 'tracker' && platform === Platform.Jira) return guarded(() => jiraConnection(url, token, http));
  // A GitHub or GitLab tracker is its repository's issues: probed on the repository, as configured ones are.
  return repositoryConnectionOf({ name: 'candidate', platform, url, api_url, path_prefix: '', auth_secret: token, branch: null }, http);
}

/** A URL the clients cannot parse is a configuration gap, not a server error. */
function guarded(build: () => PlatformConnection | UnconfiguredConnection): PlatformConnection | UnconfiguredConnection {
  try {
    return build();
  } catch (error) {
    return { unconfigured: (error as Error).message, target: null };
  }
}
