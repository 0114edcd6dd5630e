import type { SandboxState } from '../../database/entities/run-sandbox.entity.js';
import type { RunState } from '../../database/entities/run.entity.js';
import type { Platform } from '../../platforms/platform.js';

import type { StepState } from '../../pipelines/pipeline.js';

export { StepState } from '../../pipelines/pipeline.js';

export const PullRequestState = { Open: 'open', Merged: 'merged', Closed: 'closed' } as const;
export type PullRequestState = (typeof PullRequestState)[keyof typeof PullRequestState];

export interface RunSandboxView {
  repo: string;
  pathPrefix: string;
  state: SandboxState;
}

export interface RunStepView {
  name: string;
  state: StepState;
  startedAt: string;
  finishedAt: string | null;
}

export interface RunUsage {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface RunPullRequestView {
  repo: string;
  url: string;
  number: number;
  state: PullRequestState;
}

/** The pull request a ticket-less run targets (label trigger, pull-request commands). */
export interface RunTargetView {
  repo: string;
  number: number;
}

/** The run resource of the contract (`GET /api/runs`, `GET /api/runs/:id`, hub `run.changed`). */
export interface Run {
  id: string;
  project: string;
  ticket: string | null;
  /** The ticket's web page on its tracker, from the project's configuration; null without one. */
  ticketUrl: string | null;
  platform: Platform;
  pipeline: string;
  state: RunState;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  sandboxes: RunSandboxView[];
  steps: RunStepView[];
  usage: RunUsage;
  pullRequests: RunPullRequestView[];
  /** The pull request the run works on when it has no ticket; null for ticket runs. */
  target: RunTargetView | null;
}
