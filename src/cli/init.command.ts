import { resolve } from 'node:path';
import { collectSecrets } from '../common/secret-scrubber.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { loadCliConfig } from '../stored-config/cli-stored-config.js';
import { agentsRefusedBy } from '../config/agent-config.reader.js';
import { type InitRepositoryResult, InitStatus, ProjectInitializer } from '../pipelines/init/project-initializer.js';
import { InMemoryProviderGate, requestsPerMinuteFrom } from '../agent/provider-gate.js';
import { AgentContextWriters } from '../pipelines/init/agent-context.writer.js';
import { listedForPeople } from '../pipelines/init/init-texts.js';
import { pullRequestHostFor } from '../platforms/pull-request-hosts.js';
import { createSandboxBackend } from '../sandbox/sandbox-backend.factory.js';
import { RepositoryWorkspaces } from '../workspaces/git/repository-workspaces.js';

export interface InitCommandOptions {
  project: string;
}

/** One line per repository: `shop-web: opened https://… (adds a, b)`, `…; discarded the writer's other changes: c (modified))` when it oversteps. */
export function formatInitResult(result: InitRepositoryResult): string {
  const pr = result.pullRequest ? ` ${result.pullRequest.url}` : '';
  const dropped = result.discarded?.length ? `; discarded the writer's other changes: ${listedForPeople(result.discarded)}` : '';
  const adds = result.files.length > 0 ? ` (adds ${result.files.join(', ')}${dropped})` : '';
  const why = result.error ? `: ${result.error}` : '';
  return `${result.repo}: ${result.status}${pr}${adds}${why}`;
}

/**
 * `pipeline-service init --project P [--config FILE]`: project initialisation in-process, with
 * the configured sandbox backend and the server's data directory (its mirror cache); no store or
 * queue, and the database only for the stored secrets and settings (with DATABASE_URL). Prints
 * one line per repository; resolves true when every repository ended opened, updated or complete.
 */
export async function initProject(env: ServiceEnvironment, options: InitCommandOptions, out: (line: string) => void, warn: (line: string) => void = out): Promise<boolean> {
  const { loaded: { config }, notice } = await loadCliConfig(env);
  if (notice) warn(notice);
  const project = Object.hasOwn(config.projects, options.project) ? config.projects[options.project] : undefined;
  if (!project) {
    out(`unknown project ${options.project}; configured: ${Object.keys(config.projects).join(', ') || 'none'}`);
    return false;
  }
  if (project.repos.length === 0) {
    out(`project ${options.project} declares no repositories: there is nothing to initialise; add repos: to it`);
    return false;
  }
  const initializer = new ProjectInitializer({
    git: new RepositoryWorkspaces({ dataDir: resolve(env.dataDir) }),
    backend: createSandboxBackend(config, env.variables),
    hostFor: (repo) => pullRequestHostFor(repo),
    // The model writes the files when the project has one; the template otherwise.
    writer: new AgentContextWriters({
      gate: new InMemoryProviderGate(requestsPerMinuteFrom(() => config)),
      agentsAllowed: () => !agentsRefusedBy(config.sandbox),
      secrets: () => collectSecrets(config, env),
      log: (line) => out(`-- ${line}`),
    }).forProject(project),
    identity: config.git,
    secrets: collectSecrets(config, env),
  });
  const results = await initializer.initialise(project);
  for (const result of results) out(formatInitResult(result));
  return results.every((r) => r.status !== InitStatus.Failed);
}
