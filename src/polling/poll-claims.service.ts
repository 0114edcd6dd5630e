import { Injectable, Logger } from '@nestjs/common';
import { StoreUnavailableError } from '../store/lock.service.js';
import { ClaimService } from '../tickets/claim.service.js';
import { type TicketKey, describeTicket } from '../tickets/ticket-key.js';
import { DeliveryOutcome } from '../webhooks/delivery-outcome.js';
import { type TriggerLogEntry, TriggerLogService, TriggerSource } from '../webhooks/trigger-log.service.js';
import type { PollTarget } from './poll-target.js';

/** `Retry`: another claim of the ticket held its lock (that one may still fail): judge it again next cycle. */
export type PollClaimOutcome = 'Claimed' | 'AlreadyClaimed' | 'Retry' | { failed: string };

/** A poll has no HTTP exchange to answer: its trigger-log rows carry status code 0. */
export const POLL_STATUS_CODE = 0;
/** The trigger log's `event` for a polled ticket. */
export const POLL_EVENT = 'poll';

/**
 * A polled ticket's claim, through the same ClaimService as a webhook's (claim lock, database
 * decision, queue), recorded in the trigger log with source `poll`.
 */
@Injectable()
export class PollClaims {
  private readonly logger = new Logger('Poller');

  constructor(
    private readonly claims: ClaimService,
    private readonly triggerLog: TriggerLogService,
  ) {}

  async claim(target: PollTarget, ticket: string, pipeline: string, expectRunId: string | null): Promise<PollClaimOutcome> {
    const key: TicketKey = { platform: target.tracker.platform, project: target.project.name, ticket };
    try {
      const claimed = await this.claims.claim(key, pipeline, { expectRunId });
      switch (claimed.outcome) {
        case 'Claimed':
          this.record(target, ticket, DeliveryOutcome.Claimed, pipeline);
          this.logger.log(`claimed ${describeTicket(key)} for ${pipeline} (poll)`);
          return 'Claimed';
        case 'AlreadyClaimed':
          this.record(target, ticket, DeliveryOutcome.AlreadyClaimed, claimed.byLock ? 'claim lock held' : null);
          return claimed.byLock ? 'Retry' : 'AlreadyClaimed';
        case 'Failed':
          this.record(target, ticket, DeliveryOutcome.Failed, claimed.error);
          return { failed: claimed.error };
      }
    } catch (error) {
      const message = (error as Error).message;
      if (error instanceof StoreUnavailableError) {
        this.record(target, ticket, DeliveryOutcome.Skipped, 'store-unavailable');
        return { failed: `store unavailable: ${message}` };
      }
      this.logger.error(`claim of ${describeTicket(key)} failed unexpectedly: ${(error as Error).stack ?? message}`);
      this.record(target, ticket, DeliveryOutcome.Failed, message);
      return { failed: message };
    }
  }

  /** A polled ticket whose trigger names no usable pipeline: recorded like a delivery's rejection, never claimed. */
  rejected(target: PollTarget, ticket: string, reason: string): void {
    this.record(target, ticket, DeliveryOutcome.Rejected, reason);
  }

  private record(target: PollTarget, ticket: string, outcome: DeliveryOutcome, reason: string | null): void {
    const entry: TriggerLogEntry = {
      receivedAt: new Date(), source: TriggerSource.Poll, platform: target.tracker.platform, event: POLL_EVENT, deliveryId: null,
      project: target.project.name, ticket, outcome, reason, statusCode: POLL_STATUS_CODE,
    };
    this.triggerLog.record(entry);
  }
}
