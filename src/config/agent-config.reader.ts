import { builtInsWith } from '../pipelines/built-in-pipelines.js';
import { sandboxBackendNamed } from '../sandbox/sandbox-backends.js';
import type { ConfigReader, Location } from './config-reader.js';
import { AGENT } from './config-shape.js';
import { type AgentConfig, AgentProvider, type ProjectConfig, type SandboxConfig } from './service-config.js';

const PROVIDERS: readonly string[] = AGENT.keys.provider.values;
const AGENT_PIPELINES: readonly string[] = builtInsWith('drivesModel');

/**
 * An `agent:` block laid over `base` key by key (the top-level block over the defaults, a
 * project's over the top-level one). A bad value is a finding and leaves the base's value.
 */
export function readAgent(r: ConfigReader, where: Location, raw: unknown, base: AgentConfig): AgentConfig {
  const b = r.block(raw, where, AGENT);
  const agent: AgentConfig = { ...base };
  const has = (key: string) => b[key] !== undefined && b[key] !== null;
  if (has('provider')) {
    const provider = r.field(AGENT, b, where, 'provider');
    if (provider !== null && PROVIDERS.includes(provider)) agent.provider = provider as AgentProvider;
    else if (provider !== null) r.problem(r.at(where, 'provider'), `${where.path}.provider must be one of ${PROVIDERS.join(', ')}`);
  }
  if (has('model')) agent.model = r.field(AGENT, b, where, 'model') ?? base.model;
  if (has('base_url')) agent.base_url = r.field(AGENT, b, where, 'base_url') ?? base.base_url;
  // An unresolved reference unsets the key (it is reported), rather than falling back to another's key.
  if (has('api_key')) agent.api_key = r.field(AGENT, b, where, 'api_key');
  agent.max_steps = r.field(AGENT, b, where, 'max_steps', base.max_steps);
  agent.max_tokens = r.field(AGENT, b, where, 'max_tokens', base.max_tokens);
  if (has('max_cost_usd')) agent.max_cost_usd = r.field(AGENT, b, where, 'max_cost_usd', base.max_cost_usd ?? 0);
  agent.step_timeout_seconds = r.field(AGENT, b, where, 'step_timeout_seconds', base.step_timeout_seconds);
  agent.requests_per_minute = r.field(AGENT, b, where, 'requests_per_minute', base.requests_per_minute);
  if (has('prices')) {
    const at = r.at(where, 'prices');
    const PRICES = AGENT.keys.prices;
    const p = r.block(b.prices, at, PRICES);
    if (p.input_per_mtok === undefined || p.output_per_mtok === undefined) {
      r.problem(at, `${at.path} needs both input_per_mtok and output_per_mtok (US dollars per million tokens); prices were not set`);
    } else {
      agent.prices = {
        input_per_mtok: r.field(PRICES, p, at, 'input_per_mtok'),
        output_per_mtok: r.field(PRICES, p, at, 'output_per_mtok'),
      };
    }
  }
  return agent;
}

/** Model-driven commands on the server's own host (a backend that does not isolate) only when the operator said so. */
export function agentsRefusedBy(sandbox: SandboxConfig): boolean {
  return sandboxBackendNamed(sandbox.backend)?.isolatesFromHost === false && !sandbox.allow_agents_in_process;
}

/** A project can start an agent pipeline through a trigger naming one, or through pull-request commands. */
export function startsAgentPipelines(project: ProjectConfig): boolean {
  if (project.pr_commands.enabled) return true;
  return Object.values(project.triggers).some((trigger) =>
    (trigger.default_pipeline !== null && AGENT_PIPELINES.includes(trigger.default_pipeline))
    || Object.values(trigger.pipeline_from_label).some((pipeline) => AGENT_PIPELINES.includes(pipeline)));
}

/**
 * For each project that can start an agent pipeline: what its effective agent lacks is a
 * blocking finding naming the project and the field (runs of those pipelines would fail); a cost
 * limit without prices is advisory (it cannot be enforced).
 */
export function checkAgentReadiness(r: ConfigReader, projects: readonly ProjectConfig[], sandbox?: SandboxConfig): void {
  for (const project of projects) {
    if (!startsAgentPipelines(project)) continue;
    if (sandbox && agentsRefusedBy(sandbox)) {
      r.problem({ project: project.name, path: 'sandbox.backend' },
        `project ${project.name} can start agent pipelines, which do not run on the in-process backend (no isolation from the server's host): use container-engine or container-orchestrator, or set sandbox.allow_agents_in_process: true for development only`);
    }
    const { agent } = project;
    const at = (key: string): Location => ({ project: project.name, path: `projects.${project.name}.agent.${key}` });
    const missing = (key: string, why: string) =>
      r.problem(at(key), `project ${project.name} can start agent pipelines but its agent has no ${key} (set agent.${key}, or the project's own): ${why}`);
    if (agent.provider === null) missing('provider', `one of ${PROVIDERS.join(', ')}`);
    if (agent.model === null) missing('model', 'the model to call');
    if (agent.api_key === null) missing('api_key', 'set or resolvable, e.g. ${OPENAI_API_KEY}');
    const needsBase = agent.provider === AgentProvider.OpenAICompatible || agent.provider === AgentProvider.AzureOpenAI;
    if (needsBase && agent.base_url === null) missing('base_url', `${agent.provider} has no default endpoint`);
    if (agent.provider !== null && agent.max_cost_usd !== null && agent.prices === null) {
      r.problem(at('prices'), `project ${project.name}: max_cost_usd (${agent.max_cost_usd}) cannot be enforced without prices (input_per_mtok, output_per_mtok)`, 'advisory');
    }
  }
}
