import { TicketState } from '../database/entities/ticket.entity.js';
import { SERVICE_LABEL_PREFIX } from '../platforms/service-marker.js';

/** Why a transition happens (spec: "Ticket lifecycle" transition table). */
export const LifecycleTrigger = {
  Claim: 'claim',
  Dequeue: 'dequeue',
  Succeed: 'succeed',
  Fail: 'fail',
  StaleRevert: 'stale-revert',
  /** An operator cancelled the run (dashboard `POST /api/runs/:id/cancel`, or a retry of a parked run). */
  Cancel: 'cancel',
  /** The `code` agent handed the ticket back (`ask`): the run waits, live, for an answer. */
  Park: 'park',
  /** Someone answered the hand-back: the parked run ends (cancelled) and the ticket is claimable again. */
  Answer: 'answer',
} as const;
export type LifecycleTrigger = (typeof LifecycleTrigger)[keyof typeof LifecycleTrigger];

/**
 * From which states each trigger may move a ticket, and where to. Claim accepts Done and Failed
 * as well as Pending: re-running a ticket means moving it back into a trigger status, which
 * arrives as a fresh trigger for a ticket whose last run ended.
 */
export const TRANSITIONS: Record<LifecycleTrigger, { from: readonly TicketState[]; to: TicketState }> = {
  [LifecycleTrigger.Claim]: { from: [TicketState.Pending, TicketState.Done, TicketState.Failed], to: TicketState.Enqueued },
  [LifecycleTrigger.Dequeue]: { from: [TicketState.Enqueued], to: TicketState.InProgress },
  [LifecycleTrigger.Succeed]: { from: [TicketState.InProgress], to: TicketState.Done },
  [LifecycleTrigger.Fail]: { from: [TicketState.InProgress], to: TicketState.Failed },
  [LifecycleTrigger.StaleRevert]: { from: [TicketState.InProgress], to: TicketState.Pending },
  // Failed like any failed run: the label shows `service:failed` and the error (who cancelled) is posted.
  [LifecycleTrigger.Cancel]: { from: [TicketState.Enqueued, TicketState.InProgress, TicketState.Parked], to: TicketState.Failed },
  [LifecycleTrigger.Park]: { from: [TicketState.InProgress], to: TicketState.Parked },
  // Pending, not Enqueued: the answer's claim that follows is an ordinary claim (lock, queue, capacity).
  [LifecycleTrigger.Answer]: { from: [TicketState.Parked], to: TicketState.Pending },
};

export function canTransition(trigger: LifecycleTrigger, from: TicketState): boolean {
  return TRANSITIONS[trigger].from.includes(from);
}

/** The tracker label mirroring a state (spec: label / tag column). */
export function lifecycleLabel(state: TicketState): string {
  return `${SERVICE_LABEL_PREFIX}${state === TicketState.InProgress ? 'in-progress' : state}`;
}
