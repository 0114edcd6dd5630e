import type { Platform } from '../platforms/platform.js';

/** Name of the FIFO job queue claims push onto. */
export const PIPELINE_QUEUE = 'pipeline-requests';
export const PIPELINE_JOB = 'pipeline';

/**
 * What a claim puts on the job queue. It names no repository: a multi-repository project is one
 * claim and one run whose sandboxes are resolved from the project when the run starts.
 */
export interface PipelineRequest {
  runId: string;
  platform: Platform;
  project: string;
  /** null for a run that targets a pull request (`target`) instead of a ticket. */
  ticket: string | null;
  pipeline: string;
  /** The pull request a ticket-less run works on (label trigger, pull-request command); absent for ticket runs. */
  target?: PullRequestTarget | null;
  /** W3C traceparent of the delivery or command that queued it: the run's span continues that trace. */
  traceparent?: string | null;
}

/**
 * A pull request as a run's target: the project's repository that hosts it and its number. The
 * run reads the rest (head, base, fork or not) from the host when it starts, so a request queued
 * for a while still works on the pull request as it is then.
 */
export interface PullRequestTarget {
  /** The repository's `name` in the project. */
  repo: string;
  number: number;
}
