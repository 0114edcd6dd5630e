import { Injectable, Logger } from '@nestjs/common';
import { clipText } from '../common/clip-text.js';
import { ANSWER_MAX_CHARS, HandBackAnswers } from '../conversations/hand-back/hand-back-answers.service.js';
import { AnswerSource } from '../conversations/run-conversation.js';
import type { TicketChange, TicketEvent } from '../platforms/inbound-event.js';
import { carriesServiceMarker } from '../platforms/service-marker.js';
import { type TicketKey, describeTicket } from '../tickets/ticket-key.js';
import type { TriggerLogEntry } from './trigger-log.service.js';
import { type WebhookAnswer, answer } from './webhook-answer.js';

type Logged = Omit<TriggerLogEntry, 'receivedAt' | 'statusCode'>;

/** The trigger-log entry, the answer, and the answer a redelivery gets (null: judge it again). */
export type IntakeResult = [Logged, WebhookAnswer, WebhookAnswer | null];

/**
 * A comment on a parked ticket is the answer to its hand-back, not a trigger: it resumes the
 * ticket (`202 Accepted`, logged Claimed "answer to run <id>"); a second answer, or a ticket taken
 * meanwhile, is `200 Already claimed`; without the store it is `503 store_unavailable` (the
 * platform redelivers). The service's own comments (the hand-back itself comes back as a webhook)
 * carry its marker and are never answers, and a ticket parked as not implementable takes none
 * (filtered: only a retry resumes it). Null: no comment on a parked ticket, judge the event as usual.
 */
@Injectable()
export class TicketAnswerIntake {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly answers: HandBackAnswers) {}

  async take(event: TicketEvent, project: string, base: Logged): Promise<IntakeResult | null> {
    const comment = event.changes.find((c): c is Extract<TicketChange, { type: 'comment' }> => c.type === 'comment' && !carriesServiceMarker(c.body));
    if (!comment) return null;
    const key: TicketKey = { platform: event.platform, project, ticket: event.ticket };
    const by = comment.author.trim() || 'a ticket comment';
    let result;
    try {
      result = await this.answers.answerTicket(key, clipText(comment.body.trim(), ANSWER_MAX_CHARS), by, AnswerSource.TicketComment);
    } catch (error) {
      const message = (error as Error).message;
      this.logger.error(`answer on ${describeTicket(key)} failed unexpectedly: ${(error as Error).stack ?? message}`);
      return [{ ...base, outcome: 'Failed', reason: message }, answer.claimFailed(message), null];
    }
    switch (result.outcome) {
      case 'not-parked':
      case 'not-found':
        return null;
      case 'resumed': {
        const accepted = answer.accepted(key.ticket, key.project);
        return [{ ...base, outcome: 'Claimed', reason: `answer to run ${result.parkedRunId}` }, accepted, answer.alreadyClaimed(key.ticket)];
      }
      case 'conflict': {
        if (result.cause === 'not-implementable') return [{ ...base, outcome: 'filtered', reason: result.reason }, answer.filtered(result.reason), null];
        const claimed = answer.alreadyClaimed(key.ticket);
        return [{ ...base, outcome: 'AlreadyClaimed', reason: result.reason }, claimed, claimed];
      }
      case 'unavailable':
        if (result.recorded) return [{ ...base, outcome: 'Failed', reason: result.reason }, answer.claimFailed(result.reason), null];
        this.logger.warn(`answer on ${describeTicket(key)} skipped: ${result.reason}; the platform will redeliver`);
        return [{ ...base, outcome: 'skipped', reason: 'store-unavailable' }, answer.storeUnavailable(), null];
    }
  }
}
