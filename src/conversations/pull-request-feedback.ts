import type { Platform } from '../platforms/platform.js';
import type { PullRequestFeedback } from './run-conversation.js';

/** The run whose conversation is read. */
export interface ConversationRun {
  runId: string;
  platform: Platform;
  project: string;
  ticket: string | null;
}

/** Injection token of the PullRequestFeedbackSource (provided and exported by ReworkModule). */
export const PULL_REQUEST_FEEDBACK = Symbol('PULL_REQUEST_FEEDBACK');

/** What a rework of a ticket reads on its open service pull requests before its `code` run starts (none for a run without a ticket). */
export interface PullRequestFeedbackSource {
  feedbackFor(run: ConversationRun): Promise<PullRequestFeedback[]>;
}
