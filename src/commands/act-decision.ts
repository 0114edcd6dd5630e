import type { DeliveryOutcome } from '../webhooks/delivery-outcome.js';
import { type WebhookAnswer, answer } from '../webhooks/webhook-answer.js';

/** What became of a pull-request comment or review act: the webhook's answer and its trigger-log line. */
export interface ActDecision {
  outcome: DeliveryOutcome;
  reason: string;
  answer: WebhookAnswer;
  /** The ticket the act named or worked on, for the trigger log. */
  ticket?: string;
}

export const decided = {
  filtered: (reason: string): ActDecision => ({ outcome: 'filtered', reason, answer: answer.filtered(reason) }),
  duplicate: (reason: string): ActDecision => ({ outcome: 'duplicate', reason, answer: answer.filtered(reason) }),
  rejected: (code: string, detail: string, ticket?: string): ActDecision =>
    ({ outcome: 'Rejected', reason: `${code}: ${detail}`, answer: answer.rejected(code), ...(ticket ? { ticket } : {}) }),
  claimed: (subject: string, project: string, reason: string, ticket?: string): ActDecision =>
    ({ outcome: 'Claimed', reason, answer: answer.accepted(subject, project), ...(ticket ? { ticket } : {}) }),
  alreadyClaimed: (subject: string, reason: string, ticket?: string): ActDecision =>
    ({ outcome: 'AlreadyClaimed', reason, answer: answer.alreadyClaimed(subject), ...(ticket ? { ticket } : {}) }),
  failed: (error: string, ticket?: string): ActDecision => ({ outcome: 'Failed', reason: error, answer: answer.claimFailed(error), ...(ticket ? { ticket } : {}) }),
  storeUnavailable: (): ActDecision => ({ outcome: 'skipped', reason: 'store-unavailable', answer: answer.storeUnavailable() }),
};
