import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import type { TicketState } from '../../database/entities/ticket.entity.js';
import type { Platform } from '../../platforms/platform.js';
import { type TicketKey, describeTicket } from '../ticket-key.js';
import { TicketCommentKind } from './failure-comment.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import { LabelProjectionService } from './label-projection.service.js';
import { UNPOSTED_COMMENT_KEEP_MS, entryId } from './projection-entry.js';
import type { RunComment } from './run-comment.poster.js';

export interface CatchUpSummary {
  tickets: number;
  comments: number;
}

interface TicketRow {
  platform: Platform;
  project: string;
  ticket: string;
  state: TicketState;
  run_id: string;
}

interface CommentRow {
  platform: Platform;
  project: string;
  ticket: string;
  run_id: string;
  pipeline: string;
  error: string | null;
}

/** Tickets changed within the window, newest first: their label (and a Done's status) is re-checked. */
const RECENT_TICKETS_SQL = `
  SELECT platform, project, ticket, state, run_id FROM tickets
  WHERE updated_at > now() - $1 * interval '1 millisecond' AND run_id IS NOT NULL
  ORDER BY updated_at DESC LIMIT $2`;

/**
 * Tickets in `state` whose current run's comment of kind `$3` is not recorded as posted, changed
 * within `$1` ms, newest first, at most `$2`. A row still `posting` is included whatever its age:
 * the poster's claim waits out a live claim and takes over an expired or released one, then looks
 * for the run marker before posting. `error`: whether the run's error is the comment's text.
 */
function unpostedCommentsSql(state: string, options: { error: boolean; extra?: string }): string {
  return `
  SELECT t.platform, t.project, t.ticket, r.id AS run_id, r.pipeline, ${options.error ? 'r.error' : 'NULL AS error'}
  FROM tickets t
  JOIN runs r ON r.id = t.run_id
  LEFT JOIN ticket_comments c ON c.run_id = r.id AND c.kind = $3
  WHERE t.state = '${state}' AND t.updated_at > now() - $1 * interval '1 millisecond'
    AND c.state IS DISTINCT FROM 'posted'${options.extra ? `\n    AND ${options.extra}` : ''}
  ORDER BY t.updated_at DESC LIMIT $2`;
}

/**
 * Failed tickets whose run's failure comment is not posted. Only a ticket still Failed on that
 * run: a run that ended by a stale revert is `failed` too but never gets a comment.
 */
const UNPOSTED_COMMENTS_SQL = unpostedCommentsSql('failed', { error: true });

/**
 * Done tickets whose run opened pull requests and whose pull-request comment is not posted (the
 * done status waits for it, so it is re-queued with the ticket's label).
 */
const UNPOSTED_PR_COMMENTS_SQL = unpostedCommentsSql('done', { error: false, extra: 'EXISTS (SELECT 1 FROM pull_requests p WHERE p.run_id = r.id)' });

/** Parked tickets whose run's hand-back comment is not posted (the status waits for it). */
const UNPOSTED_HAND_BACKS_SQL = unpostedCommentsSql('parked', { error: false });

/**
 * Start-up catch-up of the label projection, whose pending work lived in the memory of the
 * process that stopped: once the database is ready, every replica feeds the projection what
 * recently changed (one read per ticket, spaced out; writes only where the tracker differs).
 * Every replica does it because each one's own lost work is only known to the database; running
 * it several times is harmless (see LabelProjectionService.catchUp).
 */
@Injectable()
export class ProjectionCatchUp implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LabelProjection');
  private unsubscribe: (() => void) | null = null;
  private started = false;
  private closing = false;
  private resolveRan!: (summary: CatchUpSummary | null) => void;
  /** The catch-up's outcome once it queued its work (null: it did not run). */
  readonly ran = new Promise<CatchUpSummary | null>((resolve) => (this.resolveRan = resolve));

  constructor(
    private readonly db: DatabaseService,
    private readonly projection: LabelProjectionService,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.db.onStatus((status) => {
      if (status.state === 'ready') this.start();
    });
    if (this.db.isReady) this.start();
  }

  onApplicationShutdown(): void {
    this.closing = true;
    this.unsubscribe?.();
    this.resolveRan(null);
  }

  private start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    this.unsubscribe?.();
    void this.run().then(this.resolveRan, (error: Error) => {
      this.logger.warn(`catch-up after start failed: ${error.message}; labels catch up on each ticket's next transition`);
      this.resolveRan(null);
    });
  }

  private async run(): Promise<CatchUpSummary | null> {
    const max = this.options.catchUpMaxTickets;
    const tickets: TicketRow[] = await this.db.dataSource.query(RECENT_TICKETS_SQL, [this.options.catchUpWindowMs, max]);
    const commentWindow = Math.max(this.options.catchUpWindowMs, UNPOSTED_COMMENT_KEEP_MS);
    const failures: CommentRow[] = await this.db.dataSource.query(UNPOSTED_COMMENTS_SQL, [commentWindow, max, TicketCommentKind.Failure]);
    const listings: CommentRow[] = await this.db.dataSource.query(UNPOSTED_PR_COMMENTS_SQL, [commentWindow, max, TicketCommentKind.PullRequests]);
    const handBacks: CommentRow[] = await this.db.dataSource.query(UNPOSTED_HAND_BACKS_SQL, [commentWindow, max, TicketCommentKind.HandBack]);
    const comments = [
      ...failures.map((row) => ({ row, kind: TicketCommentKind.Failure })),
      ...listings.map((row) => ({ row, kind: TicketCommentKind.PullRequests })),
      ...handBacks.map((row) => ({ row, kind: TicketCommentKind.HandBack })),
    ];
    if (this.closing) return null;

    const work = new Map<string, { key: TicketKey; current: TicketRow | null; comments: RunComment[] }>();
    const itemOf = (row: TicketRow | CommentRow) => {
      const key: TicketKey = { platform: row.platform, project: row.project, ticket: row.ticket };
      const id = entryId(key);
      const item = work.get(id) ?? { key, current: null, comments: [] };
      work.set(id, item);
      return item;
    };
    for (const row of tickets) itemOf(row).current = row;
    for (const { row, kind } of comments) itemOf(row).comments.push({ kind, runId: row.run_id, pipeline: row.pipeline, error: row.error });

    let delay = 0;
    for (const { key, current, comments: queued } of work.values()) {
      this.projection.catchUp(key, current ? { runId: current.run_id, state: current.state } : null, queued, delay);
      delay += this.options.catchUpSpacingMs;
    }
    const hours = Math.round(this.options.catchUpWindowMs / 3_600_000);
    const capped = [tickets, failures, listings, handBacks].some((rows) => rows.length >= max) ? ` (capped at the newest ${max})` : '';
    this.logger.log(`catch-up after start: ${tickets.length} ticket(s) changed in the last ${hours} h re-checked, `
      + `${comments.length} unposted comment(s) queued${capped}`
      + (comments.length > 0 ? `: ${comments.slice(0, 5).map(({ row, kind }) => `${describeTicket(row)} run ${row.run_id} (${kind})`).join(', ')}${comments.length > 5 ? ', …' : ''}` : ''));
    return { tickets: tickets.length, comments: comments.length };
  }
}
