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
  /** null for a pull-request command without a ticket. */
  ticket: string | null;
  pipeline: string;
}
