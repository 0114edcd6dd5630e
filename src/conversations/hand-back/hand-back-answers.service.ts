import { Injectable, Logger } from '@nestjs/common';
import { AskKind } from '../../agent/agent-types.js';
import { RunState } from '../../database/entities/run.entity.js';
import { TicketState } from '../../database/entities/ticket.entity.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { RunEventKind } from '../../pipelines/run-event-kind.js';
import type { Run } from '../../runs/resource/run-resource.js';
import { RunReaderService } from '../../runs/resource/run-reader.service.js';
import { RunEventsService } from '../../runs/run-events.service.js';
import { type RunRow, RunRecordsService } from '../../runs/run-records.service.js';
import { StoreUnavailableError } from '../../store/lock.service.js';
import { StoreConnectionService } from '../../store/store-connection.service.js';
import { ClaimService, type ClaimOutcome } from '../../tickets/claim.service.js';
import { LifecycleTrigger } from '../../tickets/lifecycle.js';
import { type TicketKey, describeTicket } from '../../tickets/ticket-key.js';
import { TicketLifecycleService } from '../../tickets/ticket-lifecycle.service.js';
import type { AnswerSource, HandBack } from '../run-conversation.js';
import { type RunQuestion, RunQuestionsService, toHandBack } from './run-questions.service.js';

/** Longest answer kept (the dashboard refuses a longer one; a ticket comment is cut). */
export const ANSWER_MAX_CHARS = 20_000;

/** Why an answer was refused. */
export type AnswerConflictCause = 'not-parked' | 'answered' | 'not-implementable' | 'claimed';

export type AnswerOutcome =
  /** The parked run ended (cancelled, attributed) and `run` is the new run of the ticket, claimed like any trigger. */
  | { outcome: 'resumed'; run: Run; parkedRunId: string }
  | { outcome: 'not-found' }
  /** Nothing resumed; `reason` says why. `claimed`: the answer stands, but another run took the ticket first. */
  | { outcome: 'conflict'; reason: string; cause: AnswerConflictCause }
  /**
   * The store is not up (checked before anything is written: `recorded` false, try again), or the
   * answer was recorded but its claim failed (`recorded` true: the ticket's next trigger resumes it).
   */
  | { outcome: 'unavailable'; reason: string; recorded: boolean };

/** answerTicket also says when the ticket's current run is not parked (then it is no answer at all). */
export type TicketAnswerOutcome = AnswerOutcome | { outcome: 'not-parked' };

const WHERE: Record<AnswerSource, string> = {
  'ticket-comment': 'on the ticket',
  'pull-request': 'on the pull request',
  dashboard: 'from the dashboard',
  retry: 'by a retry',
  chat: 'in chat',
};

/**
 * Answers to hand-backs (a parked run's question), from the dashboard, a ticket comment or a
 * pull-request reply. The first answer wins: it is recorded in the same transaction as the
 * lifecycle's Answer transition (ticket Parked → Pending, the parked run cancelled with who
 * answered), conditional on the question being open, so a second answer finds it closed. Then the
 * ticket is claimed like any trigger, and the new run reads the answer in its prompt. A
 * not-implementable verdict takes no answer: only a retry resumes it.
 */
@Injectable()
export class HandBackAnswers {
  private readonly logger = new Logger('HandBack');

  constructor(
    private readonly questions: RunQuestionsService,
    private readonly records: RunRecordsService,
    private readonly reader: RunReaderService,
    private readonly lifecycle: TicketLifecycleService,
    private readonly claims: ClaimService,
    private readonly events: RunEventsService,
    private readonly store: StoreConnectionService,
    private readonly metrics: MetricsService,
  ) {}

  /** `by`: the attribution (a tracker or host account, or the dashboard caller's name claim). */
  async answerRun(runId: string, text: string, by: string, source: AnswerSource): Promise<AnswerOutcome> {
    const run = await this.records.find(runId);
    if (!run) return { outcome: 'not-found' };
    const question = await this.questions.find(runId);
    const refused = refusal(run, question);
    if (refused) return refused;
    // Before anything changes: an answer must not end the parked run for a claim that cannot be made.
    if (!this.store.isConnected) return { outcome: 'unavailable', reason: `the store is not up, so run ${runId} cannot be resumed now: try again`, recorded: false };
    return this.resume(run as RunRow & { ticket: string }, text, by, source);
  }

  /** The answer to whatever the ticket's current run asked. */
  async answerTicket(key: TicketKey, text: string, by: string, source: AnswerSource): Promise<TicketAnswerOutcome> {
    const ticket = await this.lifecycle.find(key);
    if (ticket?.state !== TicketState.Parked || ticket.runId === null) return { outcome: 'not-parked' };
    return this.answerRun(ticket.runId, text, by, source);
  }

  /** The ticket's hand-backs, oldest first. */
  async historyOf(key: TicketKey): Promise<HandBack[]> {
    return (await this.questions.historyOf(key)).map(toHandBack);
  }

  private async resume(run: RunRow & { ticket: string }, text: string, by: string, source: AnswerSource): Promise<AnswerOutcome> {
    const key: TicketKey = { platform: run.platform, project: run.project, ticket: run.ticket };
    const ended = await this.lifecycle.transition(run.id, LifecycleTrigger.Answer, `answered by ${by} ${WHERE[source]}`, {
      alongside: (tx) => this.questions.recordAnswer(tx, run.id, text, by, source),
    });
    if (!ended) {
      // Lost a race (another answer, a cancel, a retry): say what won.
      const [now, question] = await Promise.all([this.records.find(run.id), this.questions.find(run.id)]);
      return now ? (refusal(now, question) ?? conflict('not-parked', `run ${run.id} is no longer parked`)) : { outcome: 'not-found' };
    }
    this.metrics.runFinished(run.pipeline, RunState.Cancelled, null); // it never started again: no duration
    this.logger.log(`run ${run.id} (${describeTicket(key)}) answered by ${by} ${WHERE[source]}`);
    let claimed: ClaimOutcome;
    try {
      claimed = await this.claims.claim(key, run.pipeline);
    } catch (error) {
      // The answer stands (the ticket is Pending): its next trigger resumes it, with the answer.
      if (!(error instanceof StoreUnavailableError)) throw error;
      return this.unresumed(run.id, `the answer was recorded, but the ticket could not be claimed (${error.message}); its next trigger resumes it`);
    }
    if (claimed.outcome === 'Failed') return this.unresumed(run.id, `the answer was recorded, but the claim failed (${claimed.error}); the ticket's next trigger resumes it`);
    if (claimed.outcome === 'AlreadyClaimed') {
      const live = await this.records.liveRunOf(key.platform, key.project, key.ticket).catch(() => null);
      const reason = `the answer was recorded, but ${live ? `run ${live.id} (${live.state})` : 'another run'} took ticket ${key.project}/${key.ticket} first: it works with the answer`;
      await this.note(run.id, reason);
      return conflict('claimed', reason);
    }
    await this.questions.noteResumed(run.id, claimed.runId);
    await this.note(run.id, `answered by ${by} ${WHERE[source]}; resumed as run ${claimed.runId}`);
    await this.note(claimed.runId, `resumes run ${run.id}, answered by ${by} ${WHERE[source]}`);
    const resumed = await this.reader.get(claimed.runId);
    return resumed ? { outcome: 'resumed', run: resumed, parkedRunId: run.id } : conflict('claimed', `run ${claimed.runId} of the answer is gone`);
  }

  private async unresumed(runId: string, reason: string): Promise<AnswerOutcome> {
    await this.note(runId, reason);
    return { outcome: 'unavailable', reason, recorded: true };
  }

  private async note(runId: string, text: string): Promise<void> {
    await this.events.append(runId, RunEventKind.RunAnswered, text).catch((error: Error) => this.logger.warn(`event of run ${runId} not stored (${text}): ${error.message}`));
  }
}

function conflict(cause: AnswerConflictCause, reason: string): AnswerOutcome {
  return { outcome: 'conflict', reason, cause };
}

/** Why this run takes no answer now, or null when it does. */
function refusal(run: RunRow, question: RunQuestion | null): AnswerOutcome | null {
  if (question?.answeredAt) {
    const how = question.answerSource === 'retry' ? `was retried by ${question.answeredBy ?? 'someone'}` : `was already answered by ${question.answeredBy ?? 'someone'} ${WHERE[question.answerSource ?? 'dashboard']}`;
    return conflict('answered', `run ${run.id} ${how}: the first answer wins`);
  }
  if (run.state !== RunState.Parked || run.ticket === null || question === null) {
    return conflict('not-parked', `run ${run.id} is ${run.state}: only a parked run takes an answer`);
  }
  if (question.kind === AskKind.NotImplementable) {
    return conflict('not-implementable', `run ${run.id} judged the ticket not implementable: an answer does not resume it, only a retry does (POST /api/runs/${run.id}/retry)`);
  }
  return null;
}
