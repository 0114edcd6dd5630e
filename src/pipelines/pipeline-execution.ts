import type { ProjectConfig, RepoConfig } from '../config/service-config.js';
import { SandboxState } from '../database/entities/run-sandbox.entity.js';
import type { SandboxBackend } from '../sandbox/sandbox-backend.js';
import type { Pipeline, PipelineWorkspace, RunArtifactSink, RunEventSink, RunSandbox, StepObserver, StepResult } from './pipeline.js';
import { RunEventKind } from './run-event-kind.js';
import { type RunIdentity, runEnvironment, sandboxName, sandboxPlan } from './run-environment.js';
import type { StepRunner } from './step-runner.js';

export interface PipelineExecutionInput {
  run: RunIdentity;
  project: ProjectConfig | null;
  pipeline: Pipeline;
  backend: SandboxBackend;
  runner: StepRunner;
  events: RunEventSink;
  /** Told of each sandbox's state (the server records it; the CLI does not). */
  onSandbox?(repo: RepoConfig | null, state: SandboxState): Promise<void>;
  /** Told of each step as it starts and ends. */
  onStep?: StepObserver;
  /** The run's repositories: trees in before the steps, changes published after. */
  workspace?: PipelineWorkspace;
  /** Fires when the run is stopped from outside; handed to every step. */
  signal?: AbortSignal;
  /** Where the steps keep the run's artifacts (the server's store); absent in `pipeline-service run`. */
  artifacts?: RunArtifactSink;
}

/**
 * One run of a pipeline: creates its N sandboxes (one per repository), runs the steps in them
 * and destroys them again however the steps ended. Used by the consumer and by `pipeline-service run`.
 */
export async function executePipeline(input: PipelineExecutionInput): Promise<StepResult> {
  const { run, events } = input;
  const note = input.onSandbox ?? (async () => undefined);
  const sandboxes: RunSandbox[] = [];
  try {
    let plan = sandboxPlan(input.project);
    if (input.workspace?.select && input.project) {
      const selected = await input.workspace.select(input.project.repos);
      if (!selected.ok) return selected;
      plan = selected.repos;
    }
    for (const repo of plan) {
      const name = sandboxName(repo);
      await note(repo, SandboxState.Creating);
      try {
        // A context's image wins over sandbox.image (container backends; the in-process one ignores it).
        const image = repo && input.workspace?.imageFor ? await input.workspace.imageFor(repo) : null;
        sandboxes.push({ repo, sandbox: await input.backend.create({ runId: run.runId, name, env: runEnvironment(run, repo), ...(image ? { image } : {}) }) });
      } catch (error) {
        await note(repo, SandboxState.Failed);
        return { ok: false, error: `sandbox ${name} could not be created: ${(error as Error).message}` };
      }
      await note(repo, SandboxState.Ready);
      events.emit(RunEventKind.SandboxCreated, name, repo ? `${repo.name} (path prefix "${repo.path_prefix}")` : 'default sandbox');
    }
    const { workspace } = input;
    if (workspace) {
      for (const entry of sandboxes) {
        if (!entry.repo) continue;
        const prepared = await workspace.prepare(entry.repo, entry.sandbox);
        if (!prepared.ok) return prepared;
        entry.resumed = prepared.resumed === true;
        if (prepared.committed) entry.committed = prepared.committed;
        if (prepared.pullRequest) entry.pullRequest = prepared.pullRequest;
      }
    }
    const result = await input.runner.run(input.pipeline, { runId: run.runId, sandboxes, events, signal: input.signal, artifacts: input.artifacts }, input.onStep);
    return workspace ? await workspace.finish(result, sandboxes) : result;
  } finally {
    await input.workspace?.release();
    for (const { repo, sandbox } of sandboxes) {
      await sandbox.destroy().catch(() => undefined);
      await note(repo, SandboxState.Destroyed).catch(() => undefined);
      events.emit(RunEventKind.SandboxDestroyed, sandbox.name, 'removed');
    }
  }
}
