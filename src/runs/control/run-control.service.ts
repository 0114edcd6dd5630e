import { Injectable, Logger } from '@nestjs/common';
import { RunQuestionsService } from '../../conversations/hand-back/run-questions.service.js';
import { LIVE_RUN_STATES, RunState } from '../../database/entities/run.entity.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { RunEventKind } from '../../pipelines/run-event-kind.js';
import { StoreUnavailableError } from '../../store/lock.service.js';
import { StoreConnectionService } from '../../store/store-connection.service.js';
import { ClaimService } from '../../tickets/claim.service.js';
import { LifecycleTrigger } from '../../tickets/lifecycle.js';
import type { TicketKey } from '../../tickets/ticket-key.js';
import { TicketLifecycleService } from '../../tickets/ticket-lifecycle.service.js';
import { CapacityQueueService } from '../capacity/capacity-queue.service.js';
import type { Run } from '../resource/run-resource.js';
import { RunReaderService } from '../resource/run-reader.service.js';
import { RunEventsService } from '../run-events.service.js';
import { RunQueueService } from '../run-queue.service.js';
import { type RunRow, RunRecordsService } from '../run-records.service.js';
import { RunControlChannel } from './run-control-channel.service.js';

/** Runs a retry may start again (contract: "a failed, cancelled or parked run"). */
const RETRYABLE: readonly RunState[] = [RunState.Failed, RunState.Cancelled, RunState.Parked];

export type CancelResult =
  | { outcome: 'cancelled'; run: Run }
  | { outcome: 'not-found' }
  /** The run had ended (before the call, or in a race the call lost). */
  | { outcome: 'ended'; state: RunState };

export type RetryResult =
  | { outcome: 'retried'; run: Run }
  | { outcome: 'not-found' }
  /** Nothing was claimed; `reason` says why (the run is not retryable, another run is live on the ticket). */
  | { outcome: 'refused'; reason: string }
  /** The claim failed for a reason of the service's (the database): try again later. */
  | { outcome: 'unavailable'; reason: string };

/**
 * Cancel and retry (dashboard "run control"). The database decides everything: a cancel is one
 * conditional transaction (the run live → `cancelled`, and its ticket Enqueued/InProgress →
 * Failed through the lifecycle, whose listeners write `service:failed` and post the error, "cancelled
 * by <who>", on the ticket). Whatever loses a race (the consumer starting the run, the run
 * ending, a stale revert, a second cancel) finds its own conditional write refused. Only after
 * the commit, best effort: the run's request leaves the queue, every replica is told to look
 * (the one executing the run kills its commands), and capacity is handed on.
 */
@Injectable()
export class RunControlService {
  private readonly logger = new Logger('RunControl');

  constructor(
    private readonly records: RunRecordsService,
    private readonly reader: RunReaderService,
    private readonly lifecycle: TicketLifecycleService,
    private readonly claims: ClaimService,
    private readonly queue: RunQueueService,
    private readonly capacity: CapacityQueueService,
    private readonly events: RunEventsService,
    private readonly channel: RunControlChannel,
    private readonly store: StoreConnectionService,
    private readonly metrics: MetricsService,
    private readonly questions: RunQuestionsService,
  ) {}

  /** `by`: who cancels (the attribution rule: the caller's name claim, or `dashboard`). */
  async cancel(runId: string, by: string): Promise<CancelResult> {
    const run = await this.records.find(runId);
    if (!run) return { outcome: 'not-found' };
    if (!LIVE_RUN_STATES.includes(run.state)) return { outcome: 'ended', state: run.state };
    if (!(await this.end(run, `cancelled by ${by}`))) {
      const now = await this.records.find(runId);
      return now ? { outcome: 'ended', state: now.state } : { outcome: 'not-found' };
    }
    await this.afterCancel(run, by);
    const cancelled = await this.reader.get(runId);
    return cancelled ? { outcome: 'cancelled', run: cancelled } : { outcome: 'not-found' };
  }

  /**
   * A new run of the same ticket and pipeline, claimed like any trigger (claim lock, one live run
   * per ticket, FIFO queue). A parked run is first ended (cancelled, attributed). Throws
   * StoreUnavailableError when the store is not up (nothing was changed then).
   */
  async retry(runId: string, by: string): Promise<RetryResult> {
    const run = await this.records.find(runId);
    if (!run) return { outcome: 'not-found' };
    if (run.ticket === null) return { outcome: 'refused', reason: `run ${runId} has no ticket: only a run of a ticket can be retried (run its pipeline again from the pull request instead)` };
    if (!RETRYABLE.includes(run.state)) return { outcome: 'refused', reason: `run ${runId} is ${run.state}: only a failed, cancelled or parked run can be retried` };
    // Before anything changes: a parked run must not be ended for a claim that cannot be made.
    if (!this.store.isConnected) throw new StoreUnavailableError(this.store.isConfigured ? 'not connected' : 'KVSTORE_URL is not set');
    const unparked = run.state === RunState.Parked && (await this.end(run, `cancelled by ${by} to retry the ticket`));
    if (unparked) {
      await this.afterCancel(run, by);
      // Its hand-back is closed by the retry (answer source `retry`): a later answer is refused.
      await this.questions.closeByRetry(run.id, by).catch((error: Error) => this.logger.warn(`hand-back of run ${run.id} not closed by the retry: ${error.message}`));
    }
    const key: TicketKey = { platform: run.platform, project: run.project, ticket: run.ticket };
    const claim = await this.claims.claim(key, run.pipeline);
    if (claim.outcome === 'Failed') return { outcome: 'unavailable', reason: `claim failed: ${claim.error}` };
    if (claim.outcome === 'AlreadyClaimed') return { outcome: 'refused', reason: await this.whyClaimed(key, claim.byLock) };
    if (unparked) await this.questions.noteResumed(run.id, claim.runId).catch(() => undefined);
    await this.note(runId, RunEventKind.RunRetried, `retried by ${by} as run ${claim.runId}`);
    await this.note(claim.runId, RunEventKind.RunRetried, `retry of run ${runId} by ${by}`);
    this.logger.log(`run ${runId} (${run.project}/${run.ticket} ${run.pipeline}) retried by ${by} as run ${claim.runId}`);
    const retried = await this.reader.get(claim.runId);
    // Deleted in the instant since its claim: as if another had taken the ticket.
    return retried ? { outcome: 'retried', run: retried } : { outcome: 'refused', reason: `run ${claim.runId} of the retry is gone` };
  }

  /**
   * The one conditional write of a cancel: true when this call ended the run. A ticket's own run
   * moves with its ticket (Enqueued/InProgress → Failed); a run without a ticket, or one its
   * ticket no longer names, ends by itself, conditional on its being live.
   */
  private async end(run: RunRow, error: string): Promise<boolean> {
    if (run.ticket !== null && (await this.lifecycle.transition(run.id, LifecycleTrigger.Cancel, error)) !== null) return true;
    return this.records.finish(run.id, RunState.Cancelled, error);
  }

  /** After the commit; each step best effort (the database already says what the run is). */
  private async afterCancel(run: RunRow, by: string): Promise<void> {
    this.logger.log(`run ${run.id} (${run.project}/${run.ticket ?? '-'} ${run.pipeline}) cancelled by ${by} (it was ${run.state})`);
    // A running run is counted by the executor that stops it, with its duration.
    if (run.state !== RunState.Running) this.metrics.runFinished(run.pipeline, RunState.Cancelled, null);
    await this.note(run.id, RunEventKind.RunCancelled, `cancelled by ${by}`);
    // A request a consumer holds cannot be removed: that consumer finds the run no longer queued.
    if (run.state === RunState.Queued && this.store.isConnected) {
      await this.queue.remove(run.id).catch((error: Error) => this.logger.warn(`request of run ${run.id} left on the queue (${error.message}); it is skipped when taken`));
    }
    await this.channel.announce(run.id);
    void this.capacity.admit(); // what the run held (if admitted) goes to the next in FIFO order
  }

  private async note(runId: string, kind: RunEventKind, text: string): Promise<void> {
    await this.events.append(runId, kind, text).catch((error: Error) => this.logger.warn(`event of run ${runId} not stored (${text}): ${error.message}`));
  }

  private async whyClaimed(key: TicketKey, byLock: boolean): Promise<string> {
    const ticket = `${key.project}/${key.ticket}`;
    if (byLock) return `ticket ${ticket} is being claimed by another trigger right now`;
    const live = await this.records.liveRunOf(key.platform, key.project, key.ticket).catch(() => null);
    return live ? `run ${live.id} is ${live.state} on ticket ${ticket}: one live run per ticket` : `another run is live on ticket ${ticket}`;
  }
}
