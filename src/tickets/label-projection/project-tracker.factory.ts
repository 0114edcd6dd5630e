import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import type { ProjectConfig, TriggerConfig } from '../../config/service-config.js';
import { AzureDevOpsTrackerClient } from '../../platforms/azure-devops/azure-devops-tracker.client.js';
import { parseGitHubRepoUrl } from '../../platforms/github/github-api.js';
import { GitHubTrackerClient } from '../../platforms/github/github-tracker.client.js';
import { GitLabTrackerClient, parseGitLabRepoUrl } from '../../platforms/gitlab/gitlab-tracker.client.js';
import { JiraTrackerClient } from '../../platforms/jira/jira-tracker.client.js';
import { Platform } from '../../platforms/platform.js';
import type { TrackerHttpOptions } from '../../platforms/http/tracker-http.js';
import { TrackerError, type TrackerClient } from '../../platforms/tracker-client.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';

/** Sent by the recovery probe's requests, so that a tracker's access log tells them apart. */
export const RECOVERY_PROBE_USER_AGENT = 'pipeline-service (label projection: is the tracker answering again?)';

/** A project's ticket tracker: the client, the API host its writes are budgeted under, its trigger block. */
export interface ProjectTracker {
  platform: Platform;
  client: TrackerClient;
  /**
   * The same tracker for the recovery probe: one HTTP try, timed out within a probe interval,
   * so probing a host that is down costs one request per interval.
   */
  prober: TrackerClient;
  /** Origin of the API the client talks to (the rate-limit key). */
  host: string;
  trigger: TriggerConfig | null;
}

/**
 * Builds the tracker client of a project from the current configuration: A/B from the project's
 * repository on the tracker's platform (`auth_secret`, `api_url`), C from `platform_c_trigger`
 * (`organization_url`, `team_project`, `credentials` PAT), D from `platform_d_trigger`
 * (`site_url`, `credentials`). Cached per project; a configuration reload drops the cache.
 */
@Injectable()
export class ProjectTrackerFactory {
  private readonly cache = new Map<string, ProjectTracker>();

  constructor(
    private readonly config: ConfigService,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
  ) {
    config.onReload(() => this.cache.clear());
  }

  /**
   * The project's tracker, or `{ unconfigured }` naming what is missing when the project gives
   * no way to reach it (no repository on the tracker's platform, no credentials): labels are then
   * not mirrored for that project, which is a configuration choice, not a failure.
   */
  forProject(name: string, platform: Platform): ProjectTracker | { unconfigured: string } {
    const cached = this.cache.get(name);
    if (cached && cached.platform === platform) return cached;
    const project = this.config.config.projects[name];
    if (!project) return { unconfigured: `project ${name} is not configured` };
    if (project.tracker !== platform) return { unconfigured: `project ${name} tracks its tickets on ${project.tracker}, not ${platform}` };
    const built = projectTrackerOf(project, this.options);
    if (!('unconfigured' in built)) this.cache.set(name, built);
    return built;
  }
}

/** A project's tracker from its configuration alone (the factory caches it; the CLI uses it as it is). */
export function projectTrackerOf(project: ProjectConfig, options: LabelProjectionOptions): ProjectTracker | { unconfigured: string } {
  const missing = missingSettings(project);
  if (missing) return { unconfigured: `project ${project.name}: ${missing}` };
  return build(project, options);
}

function missingSettings(project: ProjectConfig): string | null {
  const platform = project.tracker;
  const trigger = project.triggers[platform];
  switch (platform) {
    case Platform.GitHub:
    case Platform.GitLab: {
      const repo = project.repos.find((r) => r.platform === platform);
      if (!repo) return `no ${platform} repository declared for its tickets`;
      return repo.auth_secret ? null : `repository ${repo.name} has no auth_secret`;
    }
    case Platform.AzureDevOps:
      return trigger?.organization_url && trigger.team_project && trigger.credentials
        ? null : 'platform_c_trigger needs organization_url, team_project and credentials';
    case Platform.Jira:
      return trigger?.site_url && trigger.credentials ? null : 'platform_d_trigger needs site_url and credentials';
  }
}

function build(project: ProjectConfig, options: LabelProjectionOptions): ProjectTracker {
  const platform = project.tracker;
  const trigger = project.triggers[platform] ?? null;
  const http = options.http;
  const probeHttp: TrackerHttpOptions = {
    ...http, maxAttempts: 1, userAgent: RECOVERY_PROBE_USER_AGENT,
    timeoutMs: Math.min(http.timeoutMs ?? options.recoveryProbeMs, options.recoveryProbeMs),
  };
  const clients = (make: (h: TrackerHttpOptions) => TrackerClient) => ({ client: make(http), prober: make(probeHttp) });
  switch (platform) {
    case Platform.GitHub:
    case Platform.GitLab: {
      const repo = project.repos.find((r) => r.platform === platform);
      if (!repo) throw new TrackerError(`project ${project.name} declares no ${platform} repository for its tickets`, platform, null, false);
      if (platform === Platform.GitHub) {
        const api = repo.api_url ?? parseGitHubRepoUrl(repo.url).apiBase;
        return { platform, ...clients((h) => GitHubTrackerClient.fromConfig(repo, trigger, h)), host: new URL(api).origin, trigger };
      }
      const api = repo.api_url ?? parseGitLabRepoUrl(repo.url).apiBase;
      return { platform, ...clients((h) => GitLabTrackerClient.fromConfig(repo, trigger, h)), host: new URL(api).origin, trigger };
    }
    case Platform.AzureDevOps:
    case Platform.Jira: {
      if (!trigger) throw new TrackerError(`project ${project.name} has no ${platform} trigger block`, platform, null, false);
      if (platform === Platform.AzureDevOps) {
        return { platform, ...clients((h) => AzureDevOpsTrackerClient.fromConfig(trigger, h)), host: new URL(trigger.organization_url as string).origin, trigger };
      }
      return { platform, ...clients((h) => JiraTrackerClient.fromConfig(trigger, h)), host: new URL(trigger.site_url as string).origin, trigger };
    }
  }
}
