import type { ProjectConfig, RepoConfig } from '../config/service-config.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import type { Platform } from './platform.js';
import type { PlatformConnection, UnconfiguredConnection } from './platform-connection.js';
import { platformOf } from './platform-registry.js';

export type { PlatformConnection, UnconfiguredConnection } from './platform-connection.js';

/** What a diagnostics probe asks of the HTTP layer: one try, its own timeout, not reported as normal work. */
export function probeHttp(timeoutMs: number): TrackerHttpOptions {
  return { maxAttempts: 1, timeoutMs, observe: false, userAgent: 'pipeline-service (diagnostics probe)' };
}

/**
 * A project's ticket tracker as a connection, through its platform's descriptor: a tracker that
 * is the repository's issues (GitHub, GitLab) through the project's repository on that platform
 * (its `auth_secret`), one configured in the trigger block (Azure DevOps, Jira) at its URL with
 * `credentials`.
 */
export function trackerConnectionOf(project: ProjectConfig, http: TrackerHttpOptions): PlatformConnection | UnconfiguredConnection {
  const platform = project.tracker;
  const trigger = project.triggers[platform];
  return guarded(() => {
    const tracker = platformOf(platform)?.tracker;
    if (!tracker) return { unconfigured: `${platform} is not a platform the service serves`, target: null };
    if (!tracker.probe) {
      const repo = project.repos.find((r) => r.platform === platform);
      if (!repo) return { unconfigured: `no ${platform} repository declared for its tickets`, target: null };
      return repositoryConnectionOf(repo, http);
    }
    const url = trigger?.[tracker.probe.urlKey] ?? null;
    const missing = tracker.missingSettings(project);
    if (missing || !url || !trigger?.credentials) return { unconfigured: missing ?? 'the trigger block is incomplete', target: url };
    return tracker.probe.connect(url, trigger.credentials, http);
  });
}

/** A configured repository's code host as a connection (its API with its `auth_secret`). */
export function repositoryConnectionOf(repo: RepoConfig, http: TrackerHttpOptions): PlatformConnection | UnconfiguredConnection {
  return guarded(() => {
    const secret = repo.auth_secret;
    const descriptor = platformOf(repo.platform);
    if (!descriptor?.codeHost) return { unconfigured: `${descriptor?.product ?? repo.platform} hosts no code`, target: repo.url };
    if (!secret) return { unconfigured: `repository ${repo.name} has no auth_secret`, target: repo.api_url ?? repo.url };
    return descriptor.codeHost.connection({ ...repo, auth_secret: secret }, http);
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
  const probe = kind === 'tracker' ? platformOf(platform)?.tracker.probe : undefined;
  if (probe) return guarded(() => probe.connect(url, token, http));
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
