import { BUILT_IN_PIPELINES } from '../common/pipeline-name.js';
import type { ServiceConfig } from '../config/service-config.js';
import { CommandStep } from './command.step.js';
import type { Pipeline } from './pipeline.js';
import { UnavailableStep } from './unavailable.step.js';

/** A run of a pipeline that is not (yet) implemented fails at once; it still gets a bound. */
const UNAVAILABLE_TIMEOUT_MS = 60_000;

/**
 * The pipeline a name stands for: a configured command pipeline (`pipelines:`), or a built-in.
 * The built-ins `code`, `security-scan` and `pr-review` arrive in a later release; until then a
 * run of one fails with "pipeline X is not available in this release".
 */
export function resolvePipeline(config: ServiceConfig, name: string): Pipeline {
  const configured = config.pipelines[name];
  if (configured) {
    return { name, steps: configured.commands.map((c) => new CommandStep(c)), timeoutMs: configured.timeout_seconds * 1000 };
  }
  const reason = BUILT_IN_PIPELINES.includes(name)
    ? `pipeline ${name} is not available in this release`
    : `pipeline ${name} is not configured (no built-in and no entry under pipelines:)`;
  return { name, steps: [new UnavailableStep(reason)], timeoutMs: UNAVAILABLE_TIMEOUT_MS };
}
