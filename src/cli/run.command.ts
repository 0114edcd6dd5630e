import type { ServiceEnvironment } from '../config/environment.js';
import { loadCliConfig } from '../stored-config/cli-stored-config.js';
import { isPlatform } from '../platforms/platform.js';
import { executePipeline } from '../pipelines/pipeline-execution.js';
import { resolvePipeline } from '../pipelines/pipeline-catalog.js';
import type { RunEventSink } from '../pipelines/pipeline.js';
import { RunEventKind } from '../pipelines/run-event-kind.js';
import { StepRunner } from '../pipelines/step-runner.js';
import { createSandboxBackend } from '../sandbox/sandbox-backend.factory.js';
import { randomUUID } from 'node:crypto';
import { cliBuiltInRun, cliWorkspace } from './cli-run-support.js';

export interface RunCommandOptions {
  pipeline: string;
  project: string;
  ticket: string | null;
}

/**
 * `pipeline-service run PIPELINE --project P [--ticket T]`: runs one pipeline in-process, in the
 * configured sandbox backend, printing its events; no store or queue is involved, and the database
 * only for the stored secrets and settings (with DATABASE_URL). The
 * repositories are prepared and published as the server would (`code`: the pull request), and
 * the ticket's labels are left alone (no lifecycle without the database).
 * Resolves true when the pipeline succeeded.
 */
export async function runPipeline(env: ServiceEnvironment, options: RunCommandOptions, out: (line: string) => void, warn: (line: string) => void = out): Promise<boolean> {
  const { loaded: { config }, notice } = await loadCliConfig(env);
  if (notice) warn(notice);
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
  const cliRun = { runId, project, ticket: options.ticket, pipeline: options.pipeline };
  // Ctrl-C stops the model call and the commands, and still removes the sandboxes.
  const abort = new AbortController();
  const interrupt = () => abort.abort(new Error('interrupted (SIGINT)'));
  process.once('SIGINT', interrupt);
  const result = await executePipeline({
    run: { runId, platform: isPlatform(platform) ? platform : String(platform), project: options.project, ticket: options.ticket, pipeline: options.pipeline },
    project,
    pipeline: resolvePipeline(config, options.pipeline, cliBuiltInRun(config, env, cliRun, out)),
    backend: createSandboxBackend(config, env.variables),
    runner: new StepRunner(),
    events,
    workspace: cliWorkspace(config, env, cliRun, events, out),
    signal: abort.signal,
  }).finally(() => process.off('SIGINT', interrupt));
  out(result.ok ? `pipeline ${options.pipeline} succeeded` : `pipeline ${options.pipeline} failed: ${result.error}`);
  return result.ok;
}
