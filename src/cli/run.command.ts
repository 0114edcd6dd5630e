import type { ServiceEnvironment } from '../config/environment.js';
import { loadServiceConfig } from '../config/load-service-config.js';
import { isPlatform } from '../platforms/platform.js';
import { executePipeline } from '../pipelines/pipeline-execution.js';
import { resolvePipeline } from '../pipelines/pipeline-catalog.js';
import type { RunEventSink } from '../pipelines/pipeline.js';
import { RunEventKind } from '../pipelines/run-event-kind.js';
import { StepRunner } from '../pipelines/step-runner.js';
import { createSandboxBackend } from '../sandbox/sandbox-backend.factory.js';
import { randomUUID } from 'node:crypto';

export interface RunCommandOptions {
  pipeline: string;
  project: string;
  ticket: string | null;
}

/**
 * `pipeline-service run PIPELINE --project P [--ticket T]`: runs one pipeline in-process, in the
 * configured sandbox backend, printing its events; no database, store or queue is involved.
 * Resolves true when the pipeline succeeded.
 */
export async function runPipeline(env: ServiceEnvironment, options: RunCommandOptions, out: (line: string) => void): Promise<boolean> {
  const { config } = loadServiceConfig(env);
  const project = config.projects[options.project];
  if (!project) {
    out(`unknown project ${options.project}; configured: ${Object.keys(config.projects).join(', ') || 'none'}`);
    return false;
  }
  const platform = project.tracker;
  const runId = randomUUID();
  const events: RunEventSink = {
    emit(kind, sandbox, text) {
      const where = sandbox ? `[${sandbox}] ` : '';
      out(kind === RunEventKind.Stdout || kind === RunEventKind.Stderr ? `${where}${text}` : `-- ${kind}: ${where}${text}`);
    },
  };
  const result = await executePipeline({
    run: { runId, platform: isPlatform(platform) ? platform : String(platform), project: options.project, ticket: options.ticket, pipeline: options.pipeline },
    project,
    pipeline: resolvePipeline(config, options.pipeline),
    backend: createSandboxBackend(config, env.variables.PATH),
    runner: new StepRunner(),
    events,
  });
  out(result.ok ? `pipeline ${options.pipeline} succeeded` : `pipeline ${options.pipeline} failed: ${result.error}`);
  return result.ok;
}
