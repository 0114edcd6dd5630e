import type { TicketState } from '../../database/entities/ticket.entity.js';
import type { TicketKey } from '../ticket-key.js';
import type { RunComment } from './run-comment.poster.js';

/** The state a ticket's label should show, from the latest transition heard. */
export interface DesiredLabel {
  runId: string;
  state: TicketState;
}

/** A tracker status that goes with a run's state: `done_status` on Done, `needs_clarification_status` on Parked. */
export interface StatusWrite {
  runId: string;
  status: string;
  /** The ticket state the status belongs to: set only while the ticket is still there on this run. */
  state: TicketState;
  /**
   * Queued by the start-up catch-up, which cannot know whether it was set before: set it only
   * while the tracker still shows a trigger status (not when already set, or moved on by a person).
   */
  ifStillTriggered?: boolean;
}

/**
 * Everything still to be written for one ticket. Coalesced: a newer transition replaces
 * `label` (only the latest state is ever written) and drops a `status` it supersedes;
 * run comments (failure, pull-request list, hand-back) are per run and never dropped.
 */
export interface ProjectionEntry {
  id: string;
  key: TicketKey;
  /** The tracker API host its writes go to (`hostIdOf`), once a pass has resolved it. */
  host: string | null;
  label: DesiredLabel | null;
  /** Bumped by every transition; a write finishing for an older version leaves `label` pending. */
  version: number;
  /** The status to set for this run's state (Done, Parked), while the ticket is still in it. */
  status: StatusWrite | null;
  /** Comments still to post, by `runCommentKey` (failure comments; a Done run's pull-request list; a Parked run's hand-back). */
  comments: Map<string, RunComment>;
  /** Failed background attempts since the last transition. */
  attempts: number;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
  /** A transition arrived while a pass was running: run another pass at once. */
  rerun: boolean;
  /** In the stale-labels set since (epoch ms), or null. */
  staleSince: number | null;
  /** A failure was reported as an event: report the recovery too. */
  failed: boolean;
}

/**
 * How long an unposted failure comment is kept retrying (in the stale-labels set), and how far
 * back the start-up catch-up looks for one: nothing else would ever post it.
 */
export const UNPOSTED_COMMENT_KEEP_MS = 7 * 24 * 60 * 60_000;

export function entryId(key: TicketKey): string {
  return `${key.platform}\u0000${key.project}\u0000${key.ticket}`;
}

export function hasWork(entry: ProjectionEntry): boolean {
  return entry.label !== null || entry.status !== null || entry.comments.size > 0;
}
