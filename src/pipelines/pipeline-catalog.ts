import { agentsRefusedBy } from '../config/agent-config.reader.js';
import { failThresholdFor } from '../config/security-scan-config.reader.js';
import { type ServiceConfig, criteriaEnforced } from '../config/service-config.js';
import type { AgentRunSupport } from './agent-run/agent-support.js';
import { BUILT_IN_PIPELINES, BuiltInPipeline } from './built-in-pipelines.js';
import { codePipeline } from './code/code-pipeline.js';
import { prReviewPipeline } from './review/pr-review-pipeline.js';
import { SCAN_TOOLS } from './security-scan/scan-tools.js';
import { securityScanPipeline } from './security-scan/security-scan-pipeline.js';
import { CommandStep } from './command.step.js';
import type { Pipeline } from './pipeline.js';
import { UnavailableStep } from './unavailable.step.js';

/** A run of a pipeline that is not (yet) implemented fails at once; it still gets a bound. */
const UNAVAILABLE_TIMEOUT_MS = 60_000;

/** What a built-in agent pipeline is built for: the run's ticket and the run's agent support. */
export interface BuiltInRun {
  project: string;
  ticket: string | null;
  support: AgentRunSupport;
}

/**
 * The pipeline a name stands for: a configured command pipeline (`pipelines:`), or a built-in.
 * The agent pipelines (`code`, `pr-review`, `security-scan`) need the run's agent support;
 * without it a run fails at once saying why.
 */
export function resolvePipeline(config: ServiceConfig, name: string, run?: BuiltInRun): Pipeline {
  const configured = config.pipelines[name];
  if (configured) {
    return { name, steps: configured.commands.map((c) => new CommandStep(c)), timeoutMs: configured.timeout_seconds * 1000 };
  }
  const builder = run ? AGENT_PIPELINES[name] : undefined;
  if (builder && run) {
    if (agentsRefusedBy(config.sandbox)) return unavailable(name, AGENTS_REFUSED);
    return builder(config, run);
  }
  const reason = BUILT_IN_PIPELINES.includes(name)
    ? `pipeline ${name} is not available in this release`
    : `pipeline ${name} is not configured (no built-in and no entry under pipelines:)`;
  return unavailable(name, reason);
}

/** The built-in pipelines that drive a model, by name. */
const AGENT_PIPELINES: Readonly<Record<string, (config: ServiceConfig, run: BuiltInRun) => Pipeline>> = {
  [BuiltInPipeline.Code]: (config, run) => codePipeline(run.support, run.project, run.ticket, BuiltInPipeline.Code, { enforceCriteria: criteriaEnforced(config.projects[run.project]) }),
  [BuiltInPipeline.PrReview]: (_, run) => prReviewPipeline(run.support, run.project),
  [BuiltInPipeline.SecurityScan]: (config, run) => securityScanPipeline(run.support, SCAN_TOOLS, run.project, failThresholdFor(config, run.project)),
};

/** Why an agent pipeline does not start on the in-process backend (one line: it is the run's error and the ticket's comment). */
export const AGENTS_REFUSED = 'agent pipelines do not run on the in-process sandbox backend, which is no isolation from the server\'s host: configure container-engine or container-orchestrator (or sandbox.allow_agents_in_process: true, for development only)';

function unavailable(name: string, reason: string): Pipeline {
  return { name, steps: [new UnavailableStep(reason)], timeoutMs: UNAVAILABLE_TIMEOUT_MS };
}
