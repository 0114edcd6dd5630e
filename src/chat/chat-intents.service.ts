import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { ConfigService } from '../config/config.service.js';
import { AnswerSource } from '../conversations/run-conversation.js';
import { HandBackAnswers } from '../conversations/hand-back/hand-back-answers.service.js';
import { RunState } from '../database/entities/run.entity.js';
import { RunControlService } from '../runs/control/run-control.service.js';
import { RunReaderService } from '../runs/resource/run-reader.service.js';
import { RunRecordsService } from '../runs/run-records.service.js';
import { StoreUnavailableError } from '../store/lock.service.js';
import { ClaimService } from '../tickets/claim.service.js';
import type { TicketKey } from '../tickets/ticket-key.js';
import { knownPipelines } from '../webhooks/trigger-decision.js';
import { type ChatCaller, ChatAccessService, missing } from './chat-access.service.js';
import { CHAT_DESIGN_DIALOG, type ChatDesignDialog } from './chat-design-dialog.js';
import { ChatDesignTurns } from './chat-design-turns.service.js';
import { ChatFollowsService } from './chat-follows.service.js';
import { ChatFollower } from './chat-follower.service.js';
import { type ChatIntent, type TicketRef, parseIntent } from './chat-intent.js';
import { CHAT_INTENT_CLASSIFIER, type ChatIntentClassifier } from './chat-intent-classifier.js';
import { helpText, recentRunsText, refusal } from './chat-replies.js';
import { ChatRunViews } from './chat-run-views.service.js';
import { describeKey, pipelineToStart, resolveTicket } from './chat-tickets.js';
import type { ChatTurn } from './chat-turn.js';
import { decodeAnswer } from './run-status-text.js';

const text = (t: string) => ({ text: t, buttons: [] });

/**
 * What a chat message does (contract "Chat"): each intent checked against the same permissions
 * as the API, and carried out by the same services — a start is a claim like any trigger's, a
 * cancel and an answer are the dashboard's. A run started or followed here keeps one message in
 * the thread, which ChatFollower edits as the run moves.
 */
@Injectable()
export class ChatIntentsService {
  private readonly logger = new Logger('Chat');

  constructor(
    private readonly config: ConfigService,
    private readonly access: ChatAccessService,
    private readonly claims: ClaimService,
    private readonly control: RunControlService,
    private readonly answers: HandBackAnswers,
    private readonly records: RunRecordsService,
    private readonly reader: RunReaderService,
    private readonly views: ChatRunViews,
    private readonly follows: ChatFollowsService,
    private readonly design: ChatDesignTurns,
    private readonly follower: ChatFollower,
    @Optional() @Inject(CHAT_INTENT_CLASSIFIER) private readonly classifier: ChatIntentClassifier | null,
  ) {}

  /** A message (a mention, a direct message, a reply in a followed thread) or a command's text. */
  async message(turn: ChatTurn): Promise<void> {
    const caller = await this.access.resolve(turn.platform.name, turn.origin);
    let intent = parseIntent(turn.text, knownPipelines(this.config.config));
    const thread = turn.replies.threadId ? await this.follows.threadOf(turn.replies.threadId).catch(() => null) : null;
    if (intent.kind === 'unknown' && thread?.runId) {
      // In a thread that follows a parked run, free text is the answer to its question.
      const run = await this.records.find(thread.runId);
      if (run?.state === RunState.Parked) return this.answer(turn, caller, run.id, intent.text);
    }
    if (intent.kind === 'unknown' && turn.replies.threadId && (await this.design.isDesignThread(turn.replies.threadId))) {
      return this.design.turn(turn, caller, intent.text);
    }
    // People talking among themselves in a followed thread get no answer, and cost no model call.
    if (intent.kind === 'unknown' && !turn.addressed) return;
    if (intent.kind === 'unknown') intent = await this.classify(turn, caller, intent.text);
    await this.perform(turn, caller, intent, thread?.runId ?? null);
  }

  /** A button: an answer to a parked run's question, or a design dialogue's confirmation. */
  async action(turn: ChatTurn, actionId: string, value: string | undefined): Promise<void> {
    const caller = await this.access.resolve(turn.platform.name, turn.origin);
    if (this.design.owns(actionId)) return this.design.confirm(turn, caller, value);
    const answer = decodeAnswer(value);
    if (!answer) return;
    await this.answer(turn, caller, answer.run, answer.answer);
  }

  private async perform(turn: ChatTurn, caller: ChatCaller, intent: ChatIntent, threadRun: string | null): Promise<void> {
    switch (intent.kind) {
      case 'help':
        return void (await turn.replies.post(text(helpText(turn.platform.title, caller))));
      case 'start':
        return this.start(turn, caller, intent.pipeline, intent.ref);
      case 'state':
        return this.state(turn, caller, intent.ref);
      case 'cancel':
        return this.cancel(turn, caller, intent.ref, threadRun);
      case 'follow':
        return this.follow(turn, caller, intent.ref);
      case 'design':
        return this.design.start(turn, caller, intent.text);
      case 'unknown':
        return void (await turn.replies.post(text(`I did not understand that. Say \`help\` to see what I can do.`)));
    }
  }

  /**
   * Free text the rules do not read: only once the caller may start work (runs.control), the
   * model chooses among the same intents (the text inside its untrusted block); otherwise, or
   * without a model, it stays unknown.
   */
  private async classify(turn: ChatTurn, caller: ChatCaller, free: string): Promise<ChatIntent> {
    if (!this.classifier || missing(caller, Permission.RunsControl).length > 0 || free.trim() === '') return { kind: 'unknown', text: free };
    try {
      return await this.classifier.classify(free, knownPipelines(this.config.config));
    } catch (error) {
      this.logger.warn(`free text from ${caller.principal} not classified: ${(error as Error).message}`);
      return { kind: 'unknown', text: free };
    }
  }

  private async start(turn: ChatTurn, caller: ChatCaller, named: string | null, ref: TicketRef): Promise<void> {
    const lacking = missing(caller, Permission.RunsControl);
    if (lacking.length) return void (await turn.replies.post(text(refusal(caller, lacking, 'start a pipeline'))));
    const config = this.config.config;
    const ticket = resolveTicket(config, ref);
    if (!ticket.ok) return void (await turn.replies.post(text(`Rejected: ${ticket.reason}`)));
    const pipeline = pipelineToStart(config, ticket.project, named);
    if (!pipeline.ok) return void (await turn.replies.post(text(`Rejected: ${pipeline.reason}`)));
    let outcome;
    this.follower.willFollow();
    try {
      outcome = await this.claims.claim(ticket.key, pipeline.pipeline);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      return void (await turn.replies.post(text(`The queue's store is unavailable (${error.message}); nothing was started. Try again shortly.`)));
    }
    this.logger.log(`${caller.principal} asked for ${pipeline.pipeline} on ${describeKey(ticket.key)}: ${outcome.outcome}`);
    switch (outcome.outcome) {
      case 'Claimed':
        return this.postAndFollow(turn, outcome.runId, null);
      case 'AlreadyClaimed':
        return void (await turn.replies.post(text(await this.whyClaimed(ticket.key, outcome.byLock))));
      case 'Failed':
        return void (await turn.replies.post(text(`Claim failed: ${outcome.error}`)));
    }
  }

  private async whyClaimed(key: TicketKey, byLock: boolean): Promise<string> {
    if (byLock) return `Refused: ${describeKey(key)} is being claimed by another trigger right now.`;
    const live = await this.records.liveRunOf(key.platform, key.project, key.ticket).catch(() => null);
    if (!live) return `Refused: another run is live on ${describeKey(key)}.`;
    return `Refused: run ${live.id.slice(0, 8)} is already ${live.state} on ${describeKey(key)} (one live run per ticket) — ${this.views.links.run(live.id)}. Say \`follow ${key.project}#${key.ticket}\` to follow it here.`;
  }

  /** Posts the run's message in the thread and keeps it there: the follower edits it from now on. */
  private async postAndFollow(turn: ChatTurn, runId: string, note: string | null): Promise<void> {
    this.follower.willFollow();
    const view = await this.views.content(runId, note);
    if (!view) return void (await turn.replies.post(text(`Run ${runId} is gone.`)));
    const sent = await turn.replies.post(view.content);
    await this.follows.follow(runId, { platform: turn.platform.name, threadId: sent.threadId, messageId: sent.messageId, text: view.content.text });
    await turn.replies.subscribe(sent.threadId).catch((error: Error) => this.logger.warn(`thread ${sent.threadId} not subscribed: ${error.message}`));
    // A run that moved between its read above and the follow being stored: its message catches up now.
    await this.follower.refresh(runId, note).catch((error: Error) => this.logger.warn(`message of run ${runId} not refreshed: ${(error as Error).message}`));
  }

  private async state(turn: ChatTurn, caller: ChatCaller, ref: TicketRef | null): Promise<void> {
    const lacking = missing(caller, Permission.RunsRead);
    if (lacking.length) return void (await turn.replies.post(text(refusal(caller, lacking, 'read runs'))));
    if (ref === null) {
      const page = await this.reader.list({}, 5, 0);
      return void (await turn.replies.post(text(recentRunsText(page.items, page.total, this.views.links))));
    }
    const ticket = resolveTicket(this.config.config, ref);
    if (!ticket.ok) return void (await turn.replies.post(text(ticket.reason)));
    const page = await this.reader.list({ platform: ticket.key.platform, project: ticket.key.project, ticket: ticket.key.ticket }, 1, 0);
    const latest = page.items[0];
    if (!latest) return void (await turn.replies.post(text(`No run of ${describeKey(ticket.key)} yet.`)));
    const view = await this.views.content(latest);
    await turn.replies.post({ text: view!.content.text, buttons: [] });
  }

  private async follow(turn: ChatTurn, caller: ChatCaller, ref: TicketRef): Promise<void> {
    const lacking = missing(caller, Permission.RunsRead);
    if (lacking.length) return void (await turn.replies.post(text(refusal(caller, lacking, 'follow runs'))));
    const ticket = resolveTicket(this.config.config, ref);
    if (!ticket.ok) return void (await turn.replies.post(text(ticket.reason)));
    const live = await this.records.liveRunOf(ticket.key.platform, ticket.key.project, ticket.key.ticket);
    if (!live) return void (await turn.replies.post(text(`No run is live on ${describeKey(ticket.key)}; say \`status of ${ticket.key.project}#${ticket.key.ticket}\` for the last one.`)));
    await this.postAndFollow(turn, live.id, null);
  }

  private async cancel(turn: ChatTurn, caller: ChatCaller, ref: TicketRef | null, threadRun: string | null): Promise<void> {
    const lacking = missing(caller, Permission.RunsControl);
    if (lacking.length) return void (await turn.replies.post(text(refusal(caller, lacking, 'cancel a run'))));
    let runId = threadRun;
    if (ref !== null) {
      const ticket = resolveTicket(this.config.config, ref);
      if (!ticket.ok) return void (await turn.replies.post(text(ticket.reason)));
      runId = (await this.records.liveRunOf(ticket.key.platform, ticket.key.project, ticket.key.ticket))?.id ?? null;
      if (!runId) return void (await turn.replies.post(text(`No run is live on ${describeKey(ticket.key)}.`)));
    }
    if (!runId) return void (await turn.replies.post(text('Which run? Say `cancel project#number`, or say `cancel` in the thread of the run.')));
    const result = await this.control.cancel(runId, caller.principal);
    const reply = result.outcome === 'cancelled' ? `Cancelled run ${runId.slice(0, 8)} (${caller.principal}).`
      : result.outcome === 'ended' ? `Run ${runId.slice(0, 8)} has already ended (${result.state}).` : `Run ${runId} is gone.`;
    await turn.replies.post(text(reply));
  }

  /** The dashboard's answer: the parked run ends and the next attempt is claimed with the answer. */
  private async answer(turn: ChatTurn, caller: ChatCaller, runId: string, answer: string): Promise<void> {
    const lacking = missing(caller, Permission.RunsControl);
    if (lacking.length) return void (await turn.replies.post(text(refusal(caller, lacking, 'answer a parked run'))));
    const trimmed = answer.trim();
    if (trimmed === '') return;
    const result = await this.answers.answerRun(runId, trimmed, caller.principal, AnswerSource.Chat);
    if (result.outcome !== 'resumed') {
      const reason = result.outcome === 'not-found' ? `run ${runId} is gone` : result.reason;
      return void (await turn.replies.post(text(`Not answered: ${reason}`)));
    }
    const note = `Answered by ${caller.principal}: “${clip(trimmed)}” — the next attempt:`;
    // The thread's one message moves on to the next attempt; a thread without one gets it now.
    const kept = turn.replies.threadId ? (await this.follows.followers(runId)).find((f) => f.threadId === turn.replies.threadId) : undefined;
    if (!kept) return this.postAndFollow(turn, result.run.id, note);
    await this.follows.unfollow(runId, kept.threadId);
    await this.follows.follow(result.run.id, { ...kept, text: '' });
    await this.follower.refresh(result.run.id, note);
  }
}

function clip(s: string): string {
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}
