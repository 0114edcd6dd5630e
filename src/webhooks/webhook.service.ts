import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { ActDecision } from '../commands/act-decision.js';
import { PullRequestActsService } from '../commands/pull-request-acts.service.js';
import { ConfigService } from '../config/config.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { InboundEvent, PullRequestLabeledEvent } from '../platforms/inbound-event.js';
import { ingressOf } from '../platforms/ingress-registry.js';
import { detectPlatform } from '../platforms/platform-detection.js';
import { ALL_PLATFORMS, type Platform } from '../platforms/platform.js';
import { signatureAccepted } from '../platforms/webhook-signature.js';
import { PullRequestRunsService, type PullRequestRunRequest, describeTarget } from '../runs/pull-request-runs.service.js';
import { StoreUnavailableError } from '../store/lock.service.js';
import { SpanKind, inSpan } from '../tracing/spans.js';
import type { Span } from '@opentelemetry/api';
import { ClaimService } from '../tickets/claim.service.js';
import { type TicketKey, describeTicket } from '../tickets/ticket-key.js';
import { DeliveryDedupeService, deliveryFingerprint } from './delivery-dedupe.service.js';
import { resolveProject } from './project-resolver.js';
import { type TriggerLogEntry, TriggerLogService } from './trigger-log.service.js';
import { decideLabelTrigger } from './label-trigger.js';
import { decideTrigger } from './trigger-decision.js';
import { TicketAnswerIntake } from './ticket-answer.intake.js';
import { type WebhookAnswer, answer } from './webhook-answer.js';
import { MalformedBody } from './webhook-body-parser.js';

export interface Delivery {
  /** From the route; null on `POST /webhook` (detected from headers and body). */
  platform: Platform | null;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  body: unknown;
}

type Logged = Omit<TriggerLogEntry, 'receivedAt' | 'statusCode'>;

/**
 * The spec's processing order: detect the platform and verify its secret (401 before anything
 * else is read from the body), parse, decide whether the event matters, then claim. The answer
 * reports the claim, never the run. Every delivery lands in the trigger log.
 */
@Injectable()
export class WebhookService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly config: ConfigService,
    private readonly claims: ClaimService,
    private readonly pullRequestRuns: PullRequestRunsService,
    private readonly dedupe: DeliveryDedupeService,
    private readonly triggerLog: TriggerLogService,
    private readonly metrics: MetricsService,
    private readonly ticketAnswers: TicketAnswerIntake,
    private readonly acts: PullRequestActsService,
  ) {}

  /** One span per delivery: the claim and, through the queued job, the run continue its trace. */
  receive(delivery: Delivery): Promise<WebhookAnswer> {
    return inSpan('webhook.delivery', { kind: SpanKind.SERVER }, (span) => this.process(delivery, span));
  }

  private async process(delivery: Delivery, span: Span): Promise<WebhookAnswer> {
    const receivedAt = new Date();
    const log = (entry: Logged, result: WebhookAnswer): WebhookAnswer => {
      this.triggerLog.record({ ...entry, receivedAt, statusCode: result.status });
      this.metrics.deliveryReceived(entry.platform, entry.outcome);
      span.setAttributes({
        'pipeline_service.platform': entry.platform ?? 'undetected',
        'pipeline_service.delivery.outcome': entry.outcome,
        'http.response.status_code': result.status,
        ...(entry.project ? { 'pipeline_service.project': entry.project } : {}),
        ...(entry.ticket ? { 'pipeline_service.ticket': entry.ticket } : {}),
      });
      return result;
    };
    const platform = delivery.platform ?? detectPlatform(delivery.headers, delivery.body);
    const none: Logged = { platform, event: null, deliveryId: null, project: null, ticket: null, outcome: 'invalid', reason: null };
    if (platform === null) {
      return log({ ...none, reason: 'platform-undetected' },
        answer.badRequest(`cannot tell which platform sent this delivery; use /webhook/${ALL_PLATFORMS.join('|')}`));
    }
    const ingress = ingressOf(platform);
    if (ingress === null) return log({ ...none, reason: 'platform-unknown' }, answer.badRequest(`no webhook route for ${platform}`));
    const config = this.config.config;
    const unverified: Logged = { ...none, event: ingress.eventName(delivery.headers, delivery.body), deliveryId: ingress.deliveryId(delivery.headers, delivery.body) };

    const verdict = ingress.verify(delivery.headers, delivery.rawBody, ingress.secretFor(config, delivery.body));
    if (!signatureAccepted(verdict)) {
      // Nothing more is taken from an unverified body: project and ticket stay unrecorded.
      return log({ ...unverified, outcome: 'unauthorized', reason: `signature-${verdict}` }, answer.unauthorized(`signature ${verdict}`));
    }

    if (delivery.body instanceof MalformedBody) {
      return log({ ...unverified, reason: 'malformed-body' }, answer.badRequest(delivery.body.reason));
    }
    const event = ingress.parse(unverified.event, delivery.body, delivery.headers);
    const project = event.kind === 'ignored' ? null : resolveProject(config, event);
    const base: Logged = { ...unverified, project: project?.name ?? null, ticket: event.kind === 'ticket' ? event.ticket : null };
    // A redelivery (contract "Redelivery") gets its first answer, whatever that was: its identity
    // is the id and the bytes, not the project they route to, so one re-routed or re-judged by a
    // configuration change since is still the same delivery and does no work the first did not.
    const fingerprint = base.deliveryId === null ? null : deliveryFingerprint(base.deliveryId, delivery.rawBody);
    if (fingerprint !== null) {
      const reservation = await this.reserve(platform, fingerprint);
      if (!reservation.first) {
        return log({ ...base, outcome: 'duplicate', reason: 'repeated delivery' }, reservation.answer ?? answer.inFlight());
      }
    }
    if (event.kind === 'ticket' && project) {
      // A comment on a parked ticket answers its hand-back instead of being judged as a trigger.
      const answered = await this.ticketAnswers.take(event, project.name, base);
      if (answered) {
        if (fingerprint !== null) await this.dedupe.settle(platform, fingerprint, answered[2]).catch(() => undefined);
        return log(answered[0], answered[1]);
      }
    }
    if (event.kind === 'pr-comment' || event.kind === 'pr-review' || event.kind === 'pr-review-vote') {
      const [entry, result, repeatAnswer] = await this.act(event, project?.name ?? null, base);
      if (fingerprint !== null) await this.dedupe.settle(platform, fingerprint, repeatAnswer).catch(() => undefined);
      return log(entry, result);
    }
    const judged = this.judge(event, project?.name ?? null, base);
    if ('answer' in judged && event.kind === 'pr-labeled') {
      // A GitLab merge-request update the label trigger does not start anything for may carry a request for changes.
      const rework = await this.mergeRequestUpdate(event, project?.name ?? null, base);
      if (rework) {
        if (fingerprint !== null) await this.dedupe.settle(platform, fingerprint, rework[2]).catch(() => undefined);
        return log(rework[0], rework[1]);
      }
    }
    if ('answer' in judged) {
      if (fingerprint !== null) await this.dedupe.settle(platform, fingerprint, judged.answer).catch(() => undefined);
      return log(judged.entry, judged.answer);
    }
    const [entry, result, repeatAnswer] = 'run' in judged
      ? await this.startPullRequestRun(judged.run, base)
      : await this.claim(judged.key, judged.pipeline, base);
    if (fingerprint !== null) await this.dedupe.settle(platform, fingerprint, repeatAnswer).catch(() => undefined);
    return log(entry, result);
  }

  /** The decision, without I/O: an answer now (filtered, rejected), or the claim to make. */
  private judge(event: InboundEvent, projectName: string | null, base: Logged):
    { entry: Logged; answer: WebhookAnswer } | { key: TicketKey; pipeline: string } | { run: PullRequestRunRequest } {
    if (event.kind === 'pr-labeled') {
      const decision = decideLabelTrigger(event, projectName ? this.config.config.projects[projectName] ?? null : null);
      if (decision.verdict === 'filtered') return { entry: { ...base, outcome: 'filtered', reason: decision.reason }, answer: answer.filtered(decision.reason) };
      if (decision.verdict === 'rejected') return { entry: { ...base, outcome: 'Rejected', reason: decision.reason }, answer: answer.rejected(decision.reason) };
      return { run: { platform: event.platform, project: projectName as string, target: decision.target, pipeline: decision.pipeline } };
    }
    if (event.kind !== 'ticket') {
      const reason = event.kind === 'ignored' ? (event.reason ?? 'ignored') : `${event.kind} events start nothing`;
      return { entry: { ...base, outcome: 'filtered', reason }, answer: answer.filtered(reason) };
    }
    const config = this.config.config;
    const project = projectName ? config.projects[projectName] ?? null : null;
    const decision = decideTrigger(event, project, config);
    if (decision.verdict === 'filtered') return { entry: { ...base, outcome: 'filtered', reason: decision.reason }, answer: answer.filtered(decision.reason) };
    if (decision.verdict === 'rejected') return { entry: { ...base, outcome: 'Rejected', reason: decision.reason }, answer: answer.rejected(decision.reason) };
    return { key: { platform: event.platform, project: projectName as string, ticket: event.ticket }, pipeline: decision.pipeline };
  }

  /**
   * The claim and its answer, and the answer a redelivery gets (null: judge a redelivery again).
   * Where the database decided, a redelivery is a later delivery (spec: "the first delivery wins
   * the claim …; later deliveries return AlreadyClaimed"), also once the run has ended. Not
   * remembered: another delivery merely holding the claim lock (that one may still fail), and
   * answers asking for a retry.
   */
  private async claim(key: TicketKey, pipeline: string, base: Logged): Promise<[Logged, WebhookAnswer, WebhookAnswer | null]> {
    try {
      const claimed = await this.claims.claim(key, pipeline);
      switch (claimed.outcome) {
        case 'Claimed':
          return [{ ...base, outcome: 'Claimed', reason: pipeline }, answer.accepted(key.ticket, key.project), answer.alreadyClaimed(key.ticket)];
        case 'AlreadyClaimed': {
          const result = answer.alreadyClaimed(key.ticket);
          return [{ ...base, outcome: 'AlreadyClaimed', reason: claimed.byLock ? 'claim lock held' : null }, result, claimed.byLock ? null : result];
        }
        case 'Failed':
          return [{ ...base, outcome: 'Failed', reason: claimed.error }, answer.claimFailed(claimed.error), null];
      }
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        this.logger.warn(`skipped ${describeTicket(key)}: ${error.message}; the platform will redeliver`);
        return [{ ...base, outcome: 'skipped', reason: 'store-unavailable' }, answer.storeUnavailable(), null];
      }
      // Never Nest's JSON 500, never a delivery missing from the trigger log.
      const message = (error as Error).message;
      this.logger.error(`claim of ${describeTicket(key)} failed unexpectedly: ${(error as Error).stack ?? message}`);
      return [{ ...base, outcome: 'Failed', reason: message }, answer.claimFailed(message), null];
    }
  }

  /** The label trigger's run of a pull request, told like a claim (the pull request stands for the ticket). */
  private async startPullRequestRun(run: PullRequestRunRequest, base: Logged): Promise<[Logged, WebhookAnswer, WebhookAnswer | null]> {
    const subject = `${run.target.repo}#${run.target.number}`;
    try {
      const started = await this.pullRequestRuns.start(run);
      switch (started.outcome) {
        case 'Claimed':
          return [{ ...base, outcome: 'Claimed', reason: `${run.pipeline} of ${subject}` }, answer.accepted(subject, run.project), answer.alreadyClaimed(subject)];
        case 'AlreadyClaimed': {
          const result = answer.alreadyClaimed(subject);
          return [{ ...base, outcome: 'AlreadyClaimed', reason: `a ${run.pipeline} run of ${subject} is live` }, result, result];
        }
        case 'Failed':
          return [{ ...base, outcome: 'Failed', reason: started.error }, answer.claimFailed(started.error), null];
      }
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        this.logger.warn(`skipped ${describeTarget(run)}: ${error.message}; the platform will redeliver`);
        return [{ ...base, outcome: 'skipped', reason: 'store-unavailable' }, answer.storeUnavailable(), null];
      }
      const message = (error as Error).message;
      this.logger.error(`run of ${describeTarget(run)} failed to start: ${(error as Error).stack ?? message}`);
      return [{ ...base, outcome: 'Failed', reason: message }, answer.claimFailed(message), null];
    }
  }

  /**
   * A pull-request comment or review act (commands, rework): its answer, and the answer a
   * redelivery gets (null: judge it again — the act's own receipt then keeps it from acting twice).
   */
  private async act(event: Parameters<PullRequestActsService['handle']>[0], project: string | null, base: Logged): Promise<[Logged, WebhookAnswer, WebhookAnswer | null]> {
    try {
      return told(await this.acts.handle(event, project), base);
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        this.logger.warn(`skipped a ${event.kind} on #${event.pullRequest.number}: ${error.message}; the platform will redeliver`);
        return [{ ...base, outcome: 'skipped', reason: 'store-unavailable' }, answer.storeUnavailable(), null];
      }
      const message = (error as Error).message;
      this.logger.error(`${event.kind} on #${event.pullRequest.number} failed unexpectedly: ${(error as Error).stack ?? message}`);
      return [{ ...base, outcome: 'Failed', reason: message }, answer.claimFailed(message), null];
    }
  }

  /** A rework act carried by a merge-request update, or null (the label trigger's answer stands). */
  private async mergeRequestUpdate(event: PullRequestLabeledEvent, project: string | null, base: Logged): Promise<[Logged, WebhookAnswer, WebhookAnswer | null] | null> {
    try {
      const decision = await this.acts.mergeRequestUpdate(event, project);
      return decision === null ? null : told(decision, base);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return [{ ...base, outcome: 'skipped', reason: 'store-unavailable' }, answer.storeUnavailable(), null];
      throw error;
    }
  }

  /** A store fault while reserving must not lose the delivery: process it as a first one. */
  private async reserve(platform: Platform, fingerprint: string) {
    try {
      return await this.dedupe.reserve(platform, fingerprint);
    } catch {
      return { first: true } as const;
    }
  }
}

/** An act's decision as logged and answered; a redelivery of it gets the same answer unless it asked for a retry (5xx). */
function told(decision: ActDecision, base: Logged): [Logged, WebhookAnswer, WebhookAnswer | null] {
  const entry: Logged = { ...base, outcome: decision.outcome, reason: decision.reason, ticket: decision.ticket ?? base.ticket };
  return [entry, decision.answer, decision.answer.status >= 500 ? null : decision.answer];
}
