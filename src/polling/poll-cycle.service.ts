import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import type { PolledTicket } from '../platforms/tracker-client.js';
import { HostRateLimiter } from '../tickets/label-projection/host-rate-limiter.service.js';
import { decideTicketState } from '../webhooks/trigger-decision.js';
import { ensureActive } from './poll-aborted.js';
import { PollClaims } from './poll-claims.service.js';
import { PollCursorsService } from './poll-cursors.service.js';
import type { PollMemory } from './poll-memory.js';
import type { PollTarget } from './poll-target.js';
import { pollWindow } from './poll-window.js';
import { POLLING_OPTIONS, type PollingOptions } from './polling.options.js';
import { pollAction, triggeredAgain } from './rerun-rule.js';
import { TicketRecordsService } from './ticket-records.service.js';
import { trackerRead } from './tracker-read.js';

export interface CycleReport {
  startedAt: Date;
  fullSweep: boolean;
  /** Tickets the tracker answered (plus any carried over from the last cycle). */
  polled: number;
  /** Claim attempts and rejections: what the trigger log recorded. */
  recorded: number;
  claimed: number;
  ms: number;
}

/**
 * One poll of one project: read the cursor, ask the tracker for what can trigger (in full, or
 * updated since the cursor), judge each ticket as a webhook's trigger is judged, apply the
 * re-run rule, claim, and store the cycle's start as the new cursor only when all of it
 * succeeded — a failed cycle is asked for again whole. Throws the tracker's error (TrackerError)
 * for the task to report and retry; `active()` false between steps aborts (PollAborted).
 */
@Injectable()
export class PollCycleService {
  private readonly logger = new Logger('Poller');

  constructor(
    private readonly config: ConfigService,
    private readonly cursors: PollCursorsService,
    private readonly records: TicketRecordsService,
    private readonly claims: PollClaims,
    private readonly limiter: HostRateLimiter,
    @Inject(POLLING_OPTIONS) private readonly options: PollingOptions,
  ) {}

  async run(target: PollTarget, memory: PollMemory, active: () => boolean): Promise<CycleReport> {
    const startedAt = new Date();
    const { platform, client } = target.tracker;
    const project = target.project.name;
    const stored = await this.cursors.read(platform, project);
    const window = pollWindow(stored, memory.swept, startedAt, this.options);
    const query = { ...target.triggers, updatedSince: window.updatedSince };
    const polled = await trackerRead(this.limiter, target.tracker, active, () => client.pollTickets!(query));
    ensureActive(active);
    const tickets = memory.withCarried(polled);

    const judged = tickets.filter((t) => !memory.isSettled(t))
      .map((ticket) => ({ ticket, decision: decideTicketState(platform, ticket, target.project, this.config.config) }))
      .filter(({ decision }) => decision.verdict !== 'filtered');
    const records = await this.records.of(platform, project, judged.map(({ ticket }) => ticket.ticket));
    let recorded = 0;
    let claimed = 0;
    let failure: string | null = null;
    for (const { ticket, decision } of judged) {
      ensureActive(active);
      if (decision.verdict === 'rejected') {
        this.claims.rejected(target, ticket.ticket, decision.reason);
        memory.settle(ticket);
        recorded += 1;
        continue;
      }
      if (decision.verdict !== 'claim') continue;
      const action = pollAction(records.get(ticket.ticket) ?? null, new Date(ticket.updatedAt));
      if (action.kind === 'leave') continue;
      if (action.kind === 'ask-history' && !triggeredAgain(await this.triggeredAt(target, ticket, active), action.since)) {
        memory.settle(ticket);
        continue;
      }
      ensureActive(active);
      const outcome = await this.claims.claim(target, ticket.ticket, decision.pipeline, action.expectRunId);
      recorded += 1;
      if (outcome === 'Claimed') claimed += 1;
      else if (outcome === 'Retry') memory.carry(ticket);
      else if (outcome !== 'AlreadyClaimed') failure ??= outcome.failed;
    }
    // A claim that failed (store or database away) is tried again with the same window.
    if (failure !== null) throw new Error(`claims failed, the cycle is retried: ${failure}`);
    ensureActive(active);
    await this.cursors.write(platform, project, { cursor: startedAt, lastFullSweepAt: window.fullSweep ? startedAt : stored?.lastFullSweepAt ?? null });
    if (window.fullSweep) memory.keepOnly(polled);
    const report = { startedAt, fullSweep: window.fullSweep, polled: tickets.length, recorded, claimed, ms: Date.now() - startedAt.getTime() };
    this.logger.debug(`polled ${project}${report.fullSweep ? ' (full sweep)' : ''}: ${report.polled} ticket(s), ${claimed} claimed, in ${report.ms} ms`);
    return report;
  }

  /** When the ticket's trigger was last put on it, from the tracker's history (null: cannot tell → no re-run). */
  private async triggeredAt(target: PollTarget, ticket: PolledTicket, active: () => boolean): Promise<Date | null> {
    const { client } = target.tracker;
    if (typeof client.triggeredAt !== 'function') return null;
    return trackerRead(this.limiter, target.tracker, active, () => client.triggeredAt!(ticket.ticket, target.triggers));
  }
}
