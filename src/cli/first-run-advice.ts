import type { ServiceEnvironment } from '../config/environment.js';
import type { ServiceConfig } from '../config/service-config.js';
import { builtInsWith } from '../pipelines/built-in-pipelines.js';

/** Pipelines that need a model; command pipelines (`pipelines:`) do not. */
const MODEL_PIPELINES = new Set(builtInsWith('drivesModel'));

/**
 * What still stands between this configuration and a first run, in plain sentences for a person
 * (doctor prints them above the checks). Empty when a labelled ticket can become a run.
 */
export function firstRunAdvice(config: ServiceConfig, env: Pick<ServiceEnvironment, 'kvstoreUrl'>): string[] {
  const advice: string[] = [];
  const projects = Object.keys(config.projects);
  if (projects.length === 0) {
    advice.push('No project is configured, so nothing can start a run. Add one on the dashboard (Projects → Add project), '
      + 'or under `projects:` in the bootstrap file (config/service.example.yml documents every key; docs/first-run-github.md walks through it).');
  }
  if (env.kvstoreUrl === null) {
    advice.push('No store is set (KVSTORE_URL), so no run can be queued. Start with KVSTORE_URL=embedded (what `npm run serve` does; '
      + 'it needs redis-server: apt-get install redis-server or brew install redis), or point KVSTORE_URL at a Redis.');
  }
  const modelless = config.agent.provider === null || config.agent.model === null;
  const wanting = projects.filter((name) => pipelinesOf(config, name).some((p) => MODEL_PIPELINES.has(p)));
  if (modelless && wanting.length > 0) {
    advice.push(`No model is configured (agent: provider and model), but ${wanting.map((p) => `project ${p}`).join(', ')} `
      + `start${wanting.length === 1 ? 's' : ''} pipelines that need one (code, pr-review, security-scan). Set the agent: block, `
      + 'or start with a command pipeline under `pipelines:`.');
  }
  return advice;
}

/** Every pipeline a project's triggers can start: their defaults and label mappings. */
function pipelinesOf(config: ServiceConfig, project: string): string[] {
  return Object.values(config.projects[project]?.triggers ?? {}).flatMap((t) => [
    ...(t?.default_pipeline ? [t.default_pipeline] : []),
    ...Object.values(t?.pipeline_from_label ?? {}),
  ]);
}
