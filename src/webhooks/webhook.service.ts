import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import type { TicketEvent } from '../platforms/inbound-event.js';
import { INGRESS } from '../platforms/ingress-registry.js';
import { detectPlatform } from '../platforms/platform-detection.js';
import type { Platform } from '../platforms/platform.js';
import { signatureAccepted } from '../platforms/webhook-signature.js';
import { StoreUnavailableError } from '../store/lock.service.js';
import { ClaimService } from '../tickets/claim.service.js';
import { DeliveryDedupeService } from './delivery-dedupe.service.js';
import { resolveProject } from './project-resolver.js';
import { type TriggerLogEntry, TriggerLogService } from './trigger-log.service.js';
import { decideTrigger } from './trigger-decision.js';
import { type WebhookAnswer, answer } from './webhook-answer.js';

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
 * else), parse, decide whether the event matters, then claim. The answer reports the claim,
 * never the run. Every delivery lands in the trigger log.
 */
@Injectable()
export class WebhookService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly config: ConfigService,
    private readonly claims: ClaimService,
    private readonly dedupe: DeliveryDedupeService,
    private readonly triggerLog: TriggerLogService,
  ) {}

  async receive(delivery: Delivery): Promise<WebhookAnswer> {
    const receivedAt = new Date();
    const log = (entry: Logged, result: WebhookAnswer): WebhookAnswer => {
      this.triggerLog.record({ ...entry, receivedAt, statusCode: result.status });
      return result;
    };
    const platform = delivery.platform ?? detectPlatform(delivery.headers, delivery.body);
    const none: Logged = { platform, event: null, deliveryId: null, project: null, ticket: null, outcome: 'invalid', reason: null };
    if (platform === null) {
      return log({ ...none, reason: 'platform-undetected' },
        answer.badRequest('cannot tell which platform sent this delivery; use /webhook/platform-a|b|c|d'));
    }
    const ingress = INGRESS[platform];
    const config = this.config.config;
    const eventName = ingress.eventName(delivery.headers, delivery.body);
    const event = ingress.parse(eventName, delivery.body, delivery.headers);
    const project = event.kind === 'ignored' ? null : resolveProject(config, event);
    const base: Logged = {
      ...none, event: eventName, deliveryId: ingress.deliveryId(delivery.headers, delivery.body),
      project: project?.name ?? null, ticket: event.kind === 'ticket' ? event.ticket : null,
    };

    const verdict = ingress.verify(delivery.headers, delivery.rawBody, ingress.secretFor(config, project?.name ?? null));
    if (!signatureAccepted(verdict)) {
      return log({ ...base, outcome: 'unauthorized', reason: `signature-${verdict}` }, answer.unauthorized(`signature ${verdict}`));
    }

    if (base.deliveryId !== null) {
      const reservation = await this.reserve(platform, base.deliveryId);
      if (!reservation.first) {
        return log({ ...base, outcome: 'duplicate', reason: 'repeated delivery id' }, reservation.answer ?? answer.inFlight());
      }
    }
    const [entry, result] = await this.decide(event.kind === 'ticket' ? event : null, event, project?.name ?? null, base);
    if (base.deliveryId !== null) await this.dedupe.settle(platform, base.deliveryId, result).catch(() => undefined);
    return log(entry, result);
  }

  private async decide(
    ticketEvent: TicketEvent | null,
    event: { kind: string; reason?: string },
    projectName: string | null,
    base: Logged,
  ): Promise<[Logged, WebhookAnswer]> {
    if (ticketEvent === null) {
      const reason = event.kind === 'ignored' ? (event.reason ?? 'ignored') : `${event.kind} events start nothing in this release`;
      return [{ ...base, outcome: 'filtered', reason }, answer.filtered(reason)];
    }
    const config = this.config.config;
    const project = projectName ? config.projects[projectName] ?? null : null;
    const decision = decideTrigger(ticketEvent, project, config);
    if (decision.verdict === 'filtered') return [{ ...base, outcome: 'filtered', reason: decision.reason }, answer.filtered(decision.reason)];
    if (decision.verdict === 'rejected') return [{ ...base, outcome: 'Rejected', reason: decision.reason }, answer.rejected(decision.reason)];

    const key = { platform: ticketEvent.platform, project: projectName as string, ticket: ticketEvent.ticket };
    try {
      const claimed = await this.claims.claim(key, decision.pipeline);
      switch (claimed.outcome) {
        case 'Claimed':
          return [{ ...base, outcome: 'Claimed', reason: decision.pipeline }, answer.accepted(key.ticket, key.project)];
        case 'AlreadyClaimed':
          return [{ ...base, outcome: 'AlreadyClaimed', reason: null }, answer.alreadyClaimed(key.ticket)];
        case 'Failed':
          return [{ ...base, outcome: 'Failed', reason: claimed.error }, answer.claimFailed(claimed.error)];
      }
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      this.logger.warn(`skipped ${key.project}/${key.ticket} (${key.platform}): ${error.message}; the platform will redeliver`);
      return [{ ...base, outcome: 'skipped', reason: 'store-unavailable' }, answer.storeUnavailable()];
    }
  }

  /** A store fault while reserving must not lose the delivery: process it as a first one. */
  private async reserve(platform: Platform, deliveryId: string) {
    try {
      return await this.dedupe.reserve(platform, deliveryId);
    } catch {
      return { first: true } as const;
    }
  }
}
