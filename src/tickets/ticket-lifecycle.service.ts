import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service.js';
import { LIVE_RUN_STATES, RunState } from '../database/entities/run.entity.js';
import { updatedRows } from '../database/updated-rows.js';
import { TicketState } from '../database/entities/ticket.entity.js';
import type { Platform } from '../platforms/platform.js';
import { LifecycleTrigger, TRANSITIONS } from './lifecycle.js';
import { type TicketKey, describeTicket } from './ticket-key.js';

export interface TransitionEvent {
  key: TicketKey;
  runId: string;
  pipeline: string;
  trigger: LifecycleTrigger;
  from: TicketState;
  to: TicketState;
  /** The run's error, on a failure. */
  error: string | null;
}

export type ClaimResult = ClaimedTicket | { outcome: 'AlreadyClaimed'; state: TicketState };

export interface ClaimedTicket {
  outcome: 'Claimed';
  runId: string;
  pipeline: string;
  /** The ticket row before the claim (null: never seen, i.e. Pending), for an undo. */
  previous: { state: TicketState; runId: string | null } | null;
}

type Listener = (event: TransitionEvent) => void | Promise<void>;

/** The run state each ticket trigger moves the ticket's run into. */
const RUN_STATE_AFTER: Partial<Record<LifecycleTrigger, RunState>> = {
  [LifecycleTrigger.Dequeue]: RunState.Running,
  [LifecycleTrigger.Succeed]: RunState.Succeeded,
  [LifecycleTrigger.Fail]: RunState.Failed,
  [LifecycleTrigger.StaleRevert]: RunState.Failed,
  [LifecycleTrigger.Cancel]: RunState.Cancelled,
  [LifecycleTrigger.Park]: RunState.Parked,
  [LifecycleTrigger.Answer]: RunState.Cancelled,
};

export interface TransitionOptions {
  /**
   * Written in the transition's own transaction, after the ticket and its run moved (the parked
   * run's question, the answer that ends it). False rolls the whole transition back: it is refused.
   */
  alongside?(tx: EntityManager): Promise<boolean>;
}

/** Rolls a transition back: the ticket pointed at the run, but the run had already ended (or `alongside` said no). */
class RunAlreadyEnded extends Error {}

const PG_UNIQUE_VIOLATION = '23505';

interface ClaimRow {
  prev_state: TicketState | null;
  prev_run: string | null;
  run_id: string | null;
}

/**
 * The claim in one statement (one round trip): lock the ticket row, and only when no live run
 * owns it insert the queued run and move the ticket to enqueued. Two first claims of a new
 * ticket race on the live-run unique index; the loser gets a unique violation.
 */
const CLAIM_SQL = `
  WITH cur AS (
    SELECT state, run_id FROM tickets WHERE platform = $1 AND project = $2 AND ticket = $3 FOR UPDATE
  ), free AS (
    SELECT NOT EXISTS (SELECT 1 FROM cur WHERE state NOT IN ('${TRANSITIONS[LifecycleTrigger.Claim].from.join("', '")}'))
      AND (NOT $7::boolean OR (SELECT run_id FROM cur) IS NOT DISTINCT FROM $8::uuid) AS yes
  ), new_run AS (
    INSERT INTO runs (id, platform, project, ticket, pipeline, state, instructions)
    SELECT $5, $1, $2, $3, $4, 'queued', $6 FROM free WHERE free.yes
    RETURNING id
  ), moved AS (
    INSERT INTO tickets (platform, project, ticket, state, pipeline, run_id)
    SELECT $1, $2, $3, 'enqueued', $4, id FROM new_run
    ON CONFLICT (platform, project, ticket)
    DO UPDATE SET state = 'enqueued', pipeline = EXCLUDED.pipeline, run_id = EXCLUDED.run_id, updated_at = now()
    RETURNING run_id
  )
  SELECT (SELECT state FROM cur) AS prev_state, (SELECT run_id FROM cur) AS prev_run, (SELECT run_id FROM moved) AS run_id`;

/**
 * The ticket lifecycle in the database, the system of record. Every transition is one
 * transaction, conditional on the state it expects, so a late or repeated call cannot move a
 * ticket twice; an illegal one is refused and logged, never applied. Listeners (label
 * projection, the live feed) hear of each transition after it committed.
 */
@Injectable()
export class TicketLifecycleService {
  private readonly logger = new Logger('TicketLifecycle');
  private readonly listeners = new Set<Listener>();

  constructor(private readonly db: DatabaseService) {}

  onTransition(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Pending (or ended) → Enqueued with a new queued run, or AlreadyClaimed when a live run owns
   * the ticket (or, given `expectRunId`, when the ticket's run is another one by now). The partial unique index on live runs backs this up against any race.
   * Listeners hear of the claim only through `announceClaim`, once its request is on the queue:
   * a claim that is undone is never announced (its label would otherwise stay on the ticket).
   */
  async claim(key: TicketKey, pipeline: string, instructions: string | null = null, expectRunId?: string | null): Promise<ClaimResult> {
    const runId = randomUUID();
    let result: ClaimResult;
    try {
      const params = [key.platform, key.project, key.ticket, pipeline, runId, instructions, expectRunId !== undefined, expectRunId ?? null];
      const [row] = await this.db.preparedQuery<ClaimRow>('ticket_claim', CLAIM_SQL, params);
      result = row?.run_id
        ? { outcome: 'Claimed', runId, pipeline, previous: row.prev_state ? { state: row.prev_state, runId: row.prev_run } : null }
        : { outcome: 'AlreadyClaimed', state: row?.prev_state ?? TicketState.Enqueued };
    } catch (error) {
      if ((error as { code?: string }).code === PG_UNIQUE_VIOLATION) return { outcome: 'AlreadyClaimed', state: TicketState.Enqueued };
      throw error;
    }
    return result;
  }

  /** Tells the listeners (and the log) of a claim that stands: Pending (or ended) → Enqueued. */
  async announceClaim(key: TicketKey, claim: ClaimedTicket): Promise<void> {
    const from = claim.previous?.state ?? TicketState.Pending;
    await this.emit({ key, runId: claim.runId, pipeline: claim.pipeline, trigger: LifecycleTrigger.Claim, from, to: TicketState.Enqueued, error: null });
  }

  /**
   * Undoes a claim whose request could not be queued: the run goes, the ticket returns to where
   * it was. Only while the claim is untouched (ticket still Enqueued on this run, run still
   * queued): a push that reported an error may still have reached the queue and its run started,
   * and deleting that run would let a second live run start for the ticket. False when the
   * claim had moved on and was left as it is.
   */
  async undoClaim(key: TicketKey, claim: ClaimedTicket): Promise<boolean> {
    const { runId, previous } = claim;
    const undone = await this.db.dataSource.transaction(async (tx) => {
      const ticketRows = previous
        ? await tx.query(
          `UPDATE tickets SET state = $4, run_id = $5, updated_at = now()
           WHERE platform = $1 AND project = $2 AND ticket = $3 AND run_id = $6 AND state = 'enqueued' RETURNING 1`,
          [key.platform, key.project, key.ticket, previous.state, previous.runId, runId],
        )
        : await tx.query(
          `DELETE FROM tickets WHERE platform = $1 AND project = $2 AND ticket = $3 AND run_id = $4 AND state = 'enqueued' RETURNING 1`,
          [key.platform, key.project, key.ticket, runId],
        );
      if (updatedRows(ticketRows).length === 0) return false;
      await tx.query(`DELETE FROM runs WHERE id = $1 AND state = 'queued'`, [runId]);
      return true;
    });
    if (undone) this.logger.warn(`claim of ${describeTicket(key)} undone: run ${runId} could not be queued`);
    else this.logger.warn(`claim of ${describeTicket(key)} kept: run ${runId} moved on although its push reported an error`);
    return undone;
  }

  /**
   * Moves the ticket owned by `runId` by `trigger`, with its run. Returns the transition, or
   * null when the ticket is not in a state the trigger accepts (refused and logged).
   */
  async transition(runId: string, trigger: LifecycleTrigger, error: string | null = null, options: TransitionOptions = {}): Promise<TransitionEvent | null> {
    const rule = TRANSITIONS[trigger];
    const runState = RUN_STATE_AFTER[trigger];
    const event = await this.db.dataSource.transaction(async (tx): Promise<TransitionEvent | null> => {
      const rows = updatedRows<{ platform: Platform; project: string; ticket: string; pipeline: string; from_state: TicketState }>(await tx.query(
        `WITH old AS (
           SELECT platform, project, ticket, state FROM tickets
           WHERE run_id = $1 AND state = ANY($2::text[]) FOR UPDATE
         )
         UPDATE tickets t SET state = $3, updated_at = now()
         FROM old WHERE t.platform = old.platform AND t.project = old.project AND t.ticket = old.ticket
         RETURNING t.platform, t.project, t.ticket, t.pipeline, old.state AS from_state`,
        [runId, rule.from, rule.to],
      ));
      const row = rows[0];
      if (!row) return null;
      if (runState && !(await updateRun(tx, runId, runState, error))) throw new RunAlreadyEnded();
      if (options.alongside && !(await options.alongside(tx))) throw new RunAlreadyEnded();
      return {
        key: { platform: row.platform, project: row.project, ticket: row.ticket },
        runId, pipeline: row.pipeline, trigger, from: row.from_state, to: rule.to, error,
      } satisfies TransitionEvent;
    }).catch((failure: unknown) => {
      if (failure instanceof RunAlreadyEnded) return null;
      throw failure;
    });
    if (!event) {
      this.logger.warn(`refused ${trigger} for run ${runId}: its ticket is not in ${rule.from.join(' or ')} on it, or the run has ended${options.alongside ? ', or what goes with it was refused' : ''}`);
      return null;
    }
    await this.emit(event);
    return event;
  }

  /** The ticket row, or null when the service has never seen it (it is then Pending). */
  async find(key: TicketKey): Promise<{ state: TicketState; runId: string | null; pipeline: string | null } | null> {
    const rows: { state: TicketState; run_id: string | null; pipeline: string | null }[] = await this.db.dataSource.query(
      'SELECT state, run_id, pipeline FROM tickets WHERE platform = $1 AND project = $2 AND ticket = $3',
      [key.platform, key.project, key.ticket],
    );
    return rows[0] ? { state: rows[0].state, runId: rows[0].run_id, pipeline: rows[0].pipeline } : null;
  }

  private async emit(event: TransitionEvent): Promise<void> {
    this.logger.log({ ticket: event.key.ticket, project: event.key.project, platform: event.key.platform, run: event.runId, outcome: event.to },
      `ticket ${describeTicket(event.key)}: ${event.from} → ${event.to} (${event.trigger})`);
    for (const listener of this.listeners) {
      try {
        await listener(event);
      } catch (error) {
        // A listener (label projection, feed) is best effort: it never undoes the committed state.
        this.logger.warn(`transition listener failed for ${describeTicket(event.key)}: ${(error as Error).message}`);
      }
    }
  }
}

/**
 * Moves the run with its ticket; false when the run had already ended (an ended run is never
 * written again: e.g. a run cancelled, or finished directly, while its ticket still named it).
 */
async function updateRun(tx: EntityManager, runId: string, state: RunState, error: string | null): Promise<boolean> {
  const live = LIVE_RUN_STATES.includes(state);
  const rows = updatedRows(await tx.query(
    `UPDATE runs SET state = $2,
       started_at = CASE WHEN $2 = 'running' THEN now() ELSE started_at END,
       finished_at = CASE WHEN $3 THEN finished_at ELSE now() END,
       error = COALESCE($4, error)
     WHERE id = $1 AND state = ANY($5::text[]) RETURNING id`,
    [runId, state, live, error, LIVE_RUN_STATES],
  ));
  return rows.length > 0;
}
