import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { sqlState } from '../../database/database-fault.js';
import { updatedRows } from '../../database/updated-rows.js';
import type { TicketKey } from '../ticket-key.js';
import type { TicketCommentKind } from './failure-comment.js';

/** A poster that crashed between claiming and recording leaves a claim this old to be taken over. */
export const COMMENT_CLAIM_EXPIRY_MS = 2 * 60_000;

/** `gone`: the run was deleted (dashboard), so there is no record to post once against. */
export type CommentClaim = 'claimed' | 'posted' | 'busy' | 'gone';

const PG_FOREIGN_KEY_VIOLATION = '23503';

/**
 * The `ticket_comments` table: at most one comment per run and kind. A poster claims the row
 * first (insert, or take over an expired or own claim), posts, then records the comment id.
 */
@Injectable()
export class TicketCommentRecordsService {
  constructor(private readonly db: DatabaseService) {}

  /** `claimed`: go ahead and post; `posted`: already done; `busy`: someone else is posting now; `gone`: the run was deleted. */
  async claim(runId: string, kind: TicketCommentKind, key: TicketKey, owner: string): Promise<CommentClaim> {
    let result: unknown;
    try {
      result = await this.db.dataSource.query(
        `INSERT INTO ticket_comments (run_id, kind, platform, project, ticket, state, claimed_by, claimed_at)
         VALUES ($1, $2, $3, $4, $5, 'posting', $6, now())
         ON CONFLICT (run_id, kind) DO UPDATE SET claimed_by = EXCLUDED.claimed_by, claimed_at = now()
           WHERE ticket_comments.state = 'posting'
             AND (ticket_comments.claimed_by = EXCLUDED.claimed_by OR ticket_comments.claimed_at < now() - $7 * interval '1 millisecond')
         RETURNING state`,
        [runId, kind, key.platform, key.project, key.ticket, owner, COMMENT_CLAIM_EXPIRY_MS],
      );
    } catch (error) {
      if (sqlState(error) === PG_FOREIGN_KEY_VIOLATION) return 'gone';
      throw error;
    }
    if (updatedRows(result).length > 0) return 'claimed';
    const existing: { state: string }[] = await this.db.dataSource.query(
      'SELECT state FROM ticket_comments WHERE run_id = $1 AND kind = $2', [runId, kind]);
    return existing[0]?.state === 'posted' ? 'posted' : 'busy';
  }

  async markPosted(runId: string, kind: TicketCommentKind, commentId: string): Promise<void> {
    await this.db.dataSource.query(
      `UPDATE ticket_comments SET state = 'posted', comment_id = $3, posted_at = now() WHERE run_id = $1 AND kind = $2`,
      [runId, kind, commentId]);
  }

  /** Gives up our claim after a failed post, so the next attempt (ours or another replica's) may take it at once. */
  async release(runId: string, kind: TicketCommentKind, owner: string): Promise<void> {
    await this.db.dataSource.query(
      `UPDATE ticket_comments SET claimed_by = NULL, claimed_at = 'epoch'
       WHERE run_id = $1 AND kind = $2 AND state = 'posting' AND claimed_by = $3`,
      [runId, kind, owner]);
  }

  async find(runId: string, kind: TicketCommentKind): Promise<{ state: string; commentId: string | null } | null> {
    const rows: { state: string; comment_id: string | null }[] = await this.db.dataSource.query(
      'SELECT state, comment_id FROM ticket_comments WHERE run_id = $1 AND kind = $2', [runId, kind]);
    return rows[0] ? { state: rows[0].state, commentId: rows[0].comment_id } : null;
  }
}
