import type { RepoConfig } from '../config/service-config.js';
import type { CriterionVerdict } from '../criteria/criteria.js';
import type { PullRequestState } from '../platforms/pull-request-review.js';
import type { Sandbox } from '../sandbox/sandbox-backend.js';
import type { RunEventKind } from './run-event-kind.js';

/** Where a run's events go: the database and the live feed in the server, the terminal in the CLI. */
export interface RunEventSink {
  emit(kind: RunEventKind, sandbox: string | null, text: string): void;
}

/** One of a run's sandboxes with the repository it serves (null for a project without repositories). */
export interface RunSandbox {
  repo: RepoConfig | null;
  sandbox: Sandbox;
  /** Its tree came from the work branch, which carries an earlier run's work (set by the workspace). */
  resumed?: boolean;
  /** The commit its tree came from, readable on the server (set by the workspace; absent without one). */
  committed?: CommittedTree;
  /** The pull request its tree is the head of (pull-request runs, ticket-triggered `pr-review`). */
  pullRequest?: PullRequestState;
}

/** A git command reading the server's copy of a repository, its output left for the caller to stream. */
export interface GitOutput {
  stdout: NodeJS.ReadableStream;
  /** Resolves when git exited 0, rejects otherwise. */
  done: Promise<void>;
  /** Ends git when the caller stops reading; harmless once it has exited. */
  stop(): void;
}

/**
 * Read-only access to the commit a sandbox's tree was taken from, in the server's mirror of the
 * repository (never inside the sandbox, which has no `.git` and no credential): deterministic
 * scanners read the tree and its history through it (`git grep <commit>`, `git log -p <commit>`).
 */
export interface CommittedTree {
  /** The repository's name in the project. */
  repo: string;
  commit: string;
  /** Runs a read-only git command (argument array, no shell) against the mirror. */
  git(args: readonly string[]): GitOutput;
}

/**
 * Where a run keeps its outputs beyond events (security-scan's SARIF and markdown report):
 * served by `GET /api/runs/:id/artifacts` and `…/artifacts/:name`. Saving a name again replaces it.
 */
export interface RunArtifactSink {
  save(name: string, mediaType: string, content: string): Promise<void>;
}

/** States of one step of a run (recorded in `run_steps`, shown in the Run's `steps`). */
export const StepState = { Running: 'running', Succeeded: 'succeeded', Failed: 'failed' } as const;
export type StepState = (typeof StepState)[keyof typeof StepState];

/** Told of each step as it starts and ends (the server records steps; the CLI does not). */
export type StepObserver = (position: number, name: string, state: StepState) => Promise<void>;

export interface StepContext {
  runId: string;
  pipeline: string;
  sandboxes: readonly RunSandbox[];
  events: RunEventSink;
  /** Epoch ms by which the whole run must have ended. */
  deadline: number;
  /** Fires when the run is stopped from outside (cancel, shutdown): long waits (a model call) end at once. */
  signal: AbortSignal;
  /** The run's artifact store (the server's; absent in `pipeline-service run`, which prints instead). */
  artifacts?: RunArtifactSink;
}

/** An acceptance criterion of the run's ticket and the agent's verdict on it (null: not reported). */
export interface CriterionOutcome {
  id: string;
  text: string;
  verdict: CriterionVerdict | null;
}

/**
 * How a step (and so a run) ended. `summary`: what the run did, for its pull requests' bodies;
 * `criteria`: the ticket's acceptance criteria with their verdicts, for the same bodies;
 * `failedStep`: the step that failed (the wip commit's `Failed-Step` trailer).
 */
export type StepResult =
  | { ok: true; summary?: string; criteria?: readonly CriterionOutcome[] }
  | { ok: false; error: string; failedStep?: string; handBack?: HandBackRequest };

/**
 * The `code` agent handed the ticket back (`ask`): the run ends `parked` instead of failed, the
 * question goes onto the ticket and its pull requests, and an answer (or, for
 * `not-implementable`, only a retry) resumes the ticket.
 */
export interface HandBackRequest {
  kind: 'question' | 'contradiction' | 'not-implementable';
  question: string;
}

/** One step of a pipeline. It runs in the run's sandboxes and reports success or the error. */
export interface PipelineStep {
  readonly name: string;
  run(context: StepContext): Promise<StepResult>;
}

/** A pipeline: an ordered list of steps, and how long the whole run may take. */
export interface Pipeline {
  readonly name: string;
  readonly steps: readonly PipelineStep[];
  readonly timeoutMs: number;
}

/** What preparing a sandbox's tree answered: the facts the steps may read about it. */
export type PreparedSandbox = StepResult & Pick<RunSandbox, 'resumed' | 'committed' | 'pullRequest'>;

/**
 * The run's repositories on the server's side (workspaces module): each sandbox gets its
 * repository's tree before the first step; after the steps what changed is published (or, for a
 * failed run, pushed as work in progress). Optional: `pipeline-service run` has none.
 */
export interface PipelineWorkspace {
  /**
   * The repositories the run works on, out of the project's (all of them unless it says
   * otherwise): a pull-request run has its pull request's repository only. A failure ends the
   * run before any sandbox exists.
   */
  select?(repos: readonly RepoConfig[]): Promise<{ ok: true; repos: RepoConfig[] } | { ok: false; error: string }>;
  /** The toolchain image the repository's contexts name, asked before its sandbox is created (null: the default). */
  imageFor?(repo: RepoConfig): Promise<string | null>;
  /** Gives a repository's sandbox its tree; a failure ends the run before any step. */
  prepare(repo: RepoConfig, sandbox: Sandbox): Promise<PreparedSandbox>;
  /** After the steps, while the sandboxes still exist: may turn a success into a failure (a refused push). */
  finish(result: StepResult, sandboxes: readonly RunSandbox[]): Promise<StepResult>;
  /** Removes the server-side scratch state however the run ended; never throws. */
  release(): Promise<void>;
}
