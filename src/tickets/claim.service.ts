import { inSpan, traceContext } from '../tracing/spans.js';
import { Injectable, Logger } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service.js';
import { LockService, StoreUnavailableError } from '../store/lock.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { RunQueueService } from '../runs/run-queue.service.js';
import { type TicketKey, describeTicket } from './ticket-key.js';
import { type ClaimedTicket, TicketLifecycleService } from './ticket-lifecycle.service.js';

/** Spec: "claim lock 30 s — read-status-and-transition window per ticket". */
export const CLAIM_LOCK_MS = 30_000;

export type ClaimOutcome =
  | { outcome: 'Claimed'; runId: string }
  /** `byLock`: another delivery held the claim lock, so the database was not asked. */
  | { outcome: 'AlreadyClaimed'; byLock: boolean }
  | { outcome: 'Failed'; error: string };

export interface ClaimOptions {
  instructions?: string | null;
  /**
   * Claim only while the ticket's run is still this one (null: no run, or never seen). The
   * poller decides from a read of the ticket; a webhook that claimed it since (and whose run may
   * already have ended) must make the poll's claim AlreadyClaimed, not a second run.
   */
  expectRunId?: string | null;
}

/**
 * One live run per ticket: a 30 s claim lock in the store serialises deliveries for a ticket,
 * the database decides (and enforces by a unique index), and the request goes on the FIFO
 * queue. A failure after the database step undoes it, so nothing is left half-claimed.
 */
@Injectable()
export class ClaimService {
  private readonly logger = new Logger('Claim');

  constructor(
    private readonly locks: LockService,
    private readonly store: StoreConnectionService,
    private readonly lifecycle: TicketLifecycleService,
    private readonly queue: RunQueueService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Throws StoreUnavailableError when the store is not up (the caller answers 503).
   * `options.instructions`: what the command that asked for the run added (rework instructions),
   * stored with the run for its model.
   */
  claim(key: TicketKey, pipeline: string, options: ClaimOptions = {}): Promise<ClaimOutcome> {
    const attributes = { 'pipeline_service.platform': key.platform, 'pipeline_service.project': key.project, 'pipeline_service.ticket': key.ticket, 'pipeline_service.pipeline': pipeline };
    return inSpan('ticket.claim', { attributes }, async (span) => {
      const started = performance.now();
      let outcome: ClaimOutcome['outcome'] | 'StoreUnavailable' = 'Failed';
      try {
        const result = await this.decide(key, pipeline, options);
        outcome = result.outcome;
        if (result.outcome === 'Claimed') span.setAttribute('pipeline_service.run_id', result.runId);
        return result;
      } catch (error) {
        if (error instanceof StoreUnavailableError) outcome = 'StoreUnavailable';
        throw error;
      } finally {
        span.setAttribute('pipeline_service.claim.outcome', outcome);
        this.metrics.claimDecided(outcome, (performance.now() - started) / 1000);
      }
    });
  }

  /** The claim itself; `claim` adds its count and latency. */
  private async decide(key: TicketKey, pipeline: string, options: ClaimOptions): Promise<ClaimOutcome> {
    if (!this.store.isConnected) throw new StoreUnavailableError(this.store.isConfigured ? 'not connected' : 'KVSTORE_URL is not set');
    const lock = await this.acquireLock(key);
    if (!lock) return { outcome: 'AlreadyClaimed', byLock: true };
    try {
      const result = await this.lifecycle.claim(key, pipeline, options.instructions ?? null, options.expectRunId);
      if (result.outcome === 'AlreadyClaimed') return { outcome: 'AlreadyClaimed', byLock: false };
      await this.push(key, result);
      await this.lifecycle.announceClaim(key, result);
      return { outcome: 'Claimed', runId: result.runId };
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      const message = (error as Error).message;
      this.logger.error(`claim of ${describeTicket(key)} failed: ${message}`);
      return { outcome: 'Failed', error: message };
    } finally {
      // Compare-and-delete: releasing a moment after the answer is harmless, so it does not delay it.
      void this.locks.release(lock).catch(() => undefined);
    }
  }

  /** The lock is the first store command of a claim: any error there means the store is not serving. */
  private async acquireLock(key: TicketKey) {
    try {
      return await this.locks.acquire(this.store.key('claim', key.platform, key.project, key.ticket), CLAIM_LOCK_MS);
    } catch (error) {
      throw error instanceof StoreUnavailableError ? error : new StoreUnavailableError((error as Error).message);
    }
  }

  /**
   * Puts the claim's request on the queue. When the push reports an error, the request may still
   * have reached the queue (a reply lost with the connection): the claim stands if it did, or if
   * its run has moved on; otherwise it is undone. Throws the push's error when the claim is
   * undone or cannot be (the reconciler then pushes the request again), as StoreUnavailableError
   * when the store has gone.
   */
  private async push(key: TicketKey, claim: ClaimedTicket): Promise<void> {
    try {
      await this.queue.enqueue({ runId: claim.runId, platform: key.platform, project: key.project, ticket: key.ticket, pipeline: claim.pipeline, ...traceContext() });
      return;
    } catch (pushError) {
      if (await this.queue.hasJob(claim.runId).catch(() => false)) return;
      try {
        if (!(await this.lifecycle.undoClaim(key, claim))) return;
      } catch (undoError) {
        this.logger.error(`claim of ${describeTicket(key)} could not be undone (${(undoError as Error).message}); `
          + `the reconciler pushes run ${claim.runId} again`);
      }
      throw this.store.isConnected ? pushError : new StoreUnavailableError((pushError as Error).message);
    }
  }
}
