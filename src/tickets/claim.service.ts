import { Injectable, Logger } from '@nestjs/common';
import { LockService, StoreUnavailableError } from '../store/lock.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { RunQueueService } from '../runs/run-queue.service.js';
import { type TicketKey, describeTicket } from './ticket-key.js';
import { TicketLifecycleService } from './ticket-lifecycle.service.js';

/** Spec: "claim lock 30 s — read-status-and-transition window per ticket". */
export const CLAIM_LOCK_MS = 30_000;

export type ClaimOutcome =
  | { outcome: 'Claimed'; runId: string }
  | { outcome: 'AlreadyClaimed' }
  | { outcome: 'Failed'; error: string };

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
  ) {}

  /** Throws StoreUnavailableError when the store is not up (the caller answers 503). */
  async claim(key: TicketKey, pipeline: string): Promise<ClaimOutcome> {
    if (!this.store.isConnected) throw new StoreUnavailableError(this.store.isConfigured ? 'not connected' : 'KVSTORE_URL is not set');
    const lock = await this.locks.acquire(this.store.key('claim', key.platform, key.project, key.ticket), CLAIM_LOCK_MS);
    if (!lock) return { outcome: 'AlreadyClaimed' };
    try {
      const result = await this.lifecycle.claim(key, pipeline);
      if (result.outcome === 'AlreadyClaimed') return { outcome: 'AlreadyClaimed' };
      try {
        await this.queue.enqueue({ runId: result.runId, platform: key.platform, project: key.project, ticket: key.ticket, pipeline });
      } catch (error) {
        await this.lifecycle.undoClaim(key, result.runId, result.previous);
        throw error;
      }
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
}
