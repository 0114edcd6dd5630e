import type { ProjectConfig, RepoConfig } from '../config/service-config.js';

/** What the run is: the variables its sandboxes receive. */
export interface RunIdentity {
  runId: string;
  platform: string;
  project: string;
  ticket: string | null;
  pipeline: string;
}

/** Name of the one sandbox of a project that declares no repositories. */
export const DEFAULT_SANDBOX_NAME = 'default';

/** One sandbox per declared repository (multi-repository projects), or one default sandbox. */
export function sandboxPlan(project: ProjectConfig | null | undefined): (RepoConfig | null)[] {
  return project && project.repos.length > 0 ? [...project.repos] : [null];
}

export function sandboxName(repo: RepoConfig | null): string {
  return repo?.name ?? DEFAULT_SANDBOX_NAME;
}

/**
 * The environment a sandbox's commands see besides PATH, HOME and LANG: the run and, in a
 * multi-repository project, which repository and path prefix this sandbox serves. Nothing of the
 * server's own environment leaks in; repository credentials come with the pipelines that need them.
 */
export function runEnvironment(run: RunIdentity, repo: RepoConfig | null): Record<string, string> {
  const env: Record<string, string> = {
    SERVICE_RUN_ID: run.runId,
    SERVICE_PLATFORM: run.platform,
    SERVICE_PROJECT: run.project,
    SERVICE_PIPELINE: run.pipeline,
    SERVICE_SANDBOX: sandboxName(repo),
  };
  if (run.ticket !== null) env.SERVICE_TICKET = run.ticket;
  if (repo) {
    env.SERVICE_REPO = repo.name;
    env.SERVICE_REPO_URL = repo.url;
    env.SERVICE_PATH_PREFIX = repo.path_prefix;
  }
  return env;
}
