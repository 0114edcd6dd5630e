import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import { TicketState } from '../../database/entities/ticket.entity.js';
import { type TicketKey, describeTicket } from '../ticket-key.js';
import { TicketLifecycleService } from '../ticket-lifecycle.service.js';
import { TicketCommentKind } from './failure-comment.js';
import { HostRateLimiter } from './host-rate-limiter.service.js';
import type { ProjectionEntry, StatusWrite } from './projection-entry.js';
import type { ProjectTracker } from './project-tracker.factory.js';
import { runCommentKey } from './run-comment.poster.js';

/** The run comment posted before a state's status is set: a Done's pull requests, a Parked's hand-back. */
const COMMENT_BEFORE_STATUS: Partial<Record<TicketState, TicketCommentKind>> = {
  [TicketState.Done]: TicketCommentKind.PullRequests,
  [TicketState.Parked]: TicketCommentKind.HandBack,
};

/**
 * The tracker status that goes with a ticket's state, for the label projection: `done_status` on
 * Done, `needs_clarification_status` on Parked (nothing when the trigger block leaves it unset).
 */
@Injectable()
export class TicketStatusWriter {
  private readonly logger = new Logger('LabelProjection');

  constructor(
    private readonly lifecycle: TicketLifecycleService,
    private readonly limiter: HostRateLimiter,
    private readonly config: ConfigService,
  ) {}

  /** The status to set for `state`, or null. */
  statusOf(key: TicketKey, state: TicketState): string | null {
    const trigger = this.config.config.projects[key.project]?.triggers[key.platform];
    if (state === TicketState.Done) return trigger?.done_status ?? null;
    if (state === TicketState.Parked) return trigger?.needs_clarification_status ?? null;
    return null;
  }

  /**
   * Sets `wanted` once its run's comment is posted, while the ticket is still in that state on
   * that run; clears it from the entry when set or no longer due. Throws what the tracker threw
   * (the projection retries).
   */
  async write(entry: ProjectionEntry, tracker: ProjectTracker, wanted: StatusWrite): Promise<void> {
    const first = COMMENT_BEFORE_STATUS[wanted.state];
    if (first && entry.comments.has(runCommentKey({ kind: first, runId: wanted.runId }))) return; // the comment is retried first
    if (await this.movedOn(entry, wanted)) return;
    const shown = wanted.ifStillTriggered ? await this.untriggeredStatus(tracker, entry.key) : null;
    if (shown !== null) {
      if (entry.status === wanted) entry.status = null;
      this.logger.debug(`${describeTicket(entry.key)}: status ${wanted.status} not re-applied: the ticket shows ${shown || 'no status'}`);
      return;
    }
    await this.limiter.take(tracker.platform, tracker.host);
    // Asked again after the tracker read and the write budget's wait, right before the write: the
    // ticket may have been triggered again meanwhile. (A tracker's status has no conditional
    // write, so this narrows the window to the request itself; it cannot close it.)
    if (await this.movedOn(entry, wanted)) return;
    await tracker.client.setStatus(entry.key.ticket, wanted.status);
    if (entry.status === wanted) entry.status = null;
    this.logger.log(`${describeTicket(entry.key)}: status ${wanted.status} set`);
  }

  /**
   * Whether the ticket left the state `wanted` belongs to. A retry may come after the ticket was
   * triggered again (perhaps on another replica, whose transitions this entry never hears): the
   * status belongs to that run's state only. When it moved on, the write is dropped from the entry.
   */
  private async movedOn(entry: ProjectionEntry, wanted: StatusWrite): Promise<boolean> {
    const now = await this.lifecycle.find(entry.key);
    if (now?.state === wanted.state && now.runId === wanted.runId) return false;
    if (entry.status === wanted) entry.status = null;
    this.logger.log(`${describeTicket(entry.key)}: status ${wanted.status} not set: the ticket moved on from run ${wanted.runId}`);
    return true;
  }

  /** Null while the ticket still shows one of its trigger statuses; else the status it shows ('' for none). */
  private async untriggeredStatus(tracker: ProjectTracker, key: TicketKey): Promise<string | null> {
    const status = (await tracker.client.readTicket(key.ticket)).status;
    const triggers = (tracker.trigger?.trigger_statuses ?? []).map((s) => s.toLowerCase());
    return status !== null && triggers.includes(status.toLowerCase()) ? null : (status ?? '');
  }
}
