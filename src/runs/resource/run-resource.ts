import type { SandboxState } from '../../database/entities/run-sandbox.entity.js';
import type { RunState } from '../../database/entities/run.entity.js';
import type { CriterionVerdict } from '../../criteria/criteria.js';
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

/** A person's judgement of a criterion (`POST /api/runs/:id/criteria/:criterion/judge`); it changes no run state. */
export interface CriterionJudgementView {
  verdict: CriterionVerdict;
  reason: string;
  /** The judge's name claim, or `dashboard`. */
  by: string;
  at: string;
}

/** One acceptance criterion of the run's ticket, with the agent's verdict (null: not reported) and a person's judgement. */
export interface RunCriterionView {
  id: string;
  text: string;
  verdict: CriterionVerdict | null;
  evidence: string | null;
  judgement: CriterionJudgementView | null;
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
  /** The ticket's acceptance criteria as the run read them, in order (empty: none, or not a `code` run). */
  criteria: RunCriterionView[];
}
