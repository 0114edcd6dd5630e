import type { ProjectConfig, RepoConfig, TriggerConfig } from '../config/service-config.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import type { Platform } from './platform.js';
import type { TrackerPart } from './platform-descriptor.js';
import { TrackerError, type TrackerClient } from './tracker-client.js';

/**
 * A tracker whose tickets live beside the code (GitHub, GitLab issues): reached through the
 * project's repository on that platform and its `auth_secret`, at the repository's API.
 */
export function repositoryTracker(
  platform: Platform,
  apiBaseOf: (repoUrl: string) => string,
  make: (repo: RepoConfig, trigger: TriggerConfig | null, http: TrackerHttpOptions) => TrackerClient,
): TrackerPart {
  const repoOf = (project: ProjectConfig) => project.repos.find((r) => r.platform === platform);
  return {
    missingSettings(project) {
      const repo = repoOf(project);
      if (!repo) return `no ${platform} repository declared for its tickets`;
      return repo.auth_secret ? null : `repository ${repo.name} has no auth_secret`;
    },
    create(project, http) {
      const repo = repoOf(project);
      if (!repo) throw new TrackerError(`project ${project.name} declares no ${platform} repository for its tickets`, platform, null, false);
      const api = repo.api_url ?? apiBaseOf(repo.url);
      return { client: make(repo, project.triggers[platform] ?? null, http), host: new URL(api).origin };
    },
  };
}

/**
 * A tracker configured in the project's trigger block alone (Azure DevOps, Jira): `required`
 * names its keys, `urlKey` the one holding its URL (the API's origin, and where the diagnostics'
 * probe `connect`s with the block's `credentials`).
 */
export function triggerBlockTracker(
  platform: Platform,
  required: readonly (keyof TriggerConfig)[],
  urlKey: 'organization_url' | 'site_url',
  make: (trigger: TriggerConfig, http: TrackerHttpOptions) => TrackerClient,
  missingMessage: string,
  connect: NonNullable<TrackerPart['probe']>['connect'],
): TrackerPart {
  return {
    probe: { urlKey, connect },
    missingSettings(project) {
      const trigger = project.triggers[platform];
      return trigger && required.every((key) => trigger[key]) ? null : missingMessage;
    },
    create(project, http) {
      const trigger = project.triggers[platform];
      if (!trigger) throw new TrackerError(`project ${project.name} has no ${platform} trigger block`, platform, null, false);
      return { client: make(trigger, http), host: new URL(trigger[urlKey] as string).origin };
    },
  };
}
