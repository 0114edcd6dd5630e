import { TicketState } from '../database/entities/ticket.entity.js';

/** What the database knows of a polled ticket. */
export interface TicketRecord {
  state: TicketState;
  runId: string | null;
  /** When the ticket's last run was created; null when it has none (or retention removed it). */
  lastRunCreatedAt: Date | null;
  /** The row's last change, standing in for the run's creation once retention removed the run. */
  updatedAt: Date;
}

export type PollAction =
  /** Claim, as long as the ticket's run is still `expectRunId` (a webhook may claim it meanwhile). */
  | { kind: 'claim'; expectRunId: string | null }
  | { kind: 'leave'; why: string }
  /** Ended, and changed on the tracker since: claim only if its trigger came back after `since`. */
  | { kind: 'ask-history'; since: Date; expectRunId: string | null };

/**
 * The re-run rule for a polled ticket that shows a trigger. A poll sees what a ticket carries,
 * not what changed, so an ended ticket still showing its trigger must not run again on every
 * poll: never seen or Pending → claim; a live run (Enqueued, InProgress, Parked) → leave it;
 * Done or Failed → only when the tracker changed the ticket after its last run was created, and
 * then only if the tracker's history shows the trigger put back since (`triggeredAgain`) — the
 * history is asked only in that case, as it costs a request.
 */
export function pollAction(record: TicketRecord | null, polledUpdatedAt: Date): PollAction {
  if (record === null) return { kind: 'claim', expectRunId: null };
  switch (record.state) {
    case TicketState.Pending:
      return { kind: 'claim', expectRunId: record.runId };
    case TicketState.Enqueued:
    case TicketState.InProgress:
    case TicketState.Parked:
      return { kind: 'leave', why: `a run is live (${record.state})` };
    case TicketState.Done:
    case TicketState.Failed: {
      const since = record.lastRunCreatedAt ?? record.updatedAt;
      // An unreadable tracker time counts as changed: the history then decides.
      const changed = Number.isNaN(polledUpdatedAt.getTime()) || polledUpdatedAt.getTime() > since.getTime();
      return changed
        ? { kind: 'ask-history', since, expectRunId: record.runId }
        : { kind: 'leave', why: `${record.state}, unchanged on the tracker since its last run` };
    }
  }
}

/** Whether the trigger was (last) put on the ticket after `since`. */
export function triggeredAgain(triggeredAt: Date | null, since: Date): boolean {
  return triggeredAt !== null && triggeredAt.getTime() > since.getTime();
}
