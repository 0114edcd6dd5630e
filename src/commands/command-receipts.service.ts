import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { updatedRows } from '../database/updated-rows.js';

/**
 * Pull-request comments and review acts already read (spec rule 4: "The command is read once"):
 * the first replica to insert an act's row acts on it; a redelivery, or the same act delivered
 * twice under two delivery ids, finds the row and does nothing.
 */
@Injectable()
export class CommandReceiptsService {
  constructor(private readonly db: DatabaseService) {}

  /** True for the first read of the act. */
  async firstRead(platform: string, repository: string, actId: string): Promise<boolean> {
    const rows = await this.db.dataSource.query(
      `INSERT INTO command_receipts (platform, repository, act_id) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING 1`, [platform, repository, actId]);
    return updatedRows(rows).length > 0;
  }

  /** Forgets an act whose handling must be redone (the store was away: the host redelivers it). */
  async forget(platform: string, repository: string, actId: string): Promise<void> {
    await this.db.dataSource.query('DELETE FROM command_receipts WHERE platform = $1 AND repository = $2 AND act_id = $3', [platform, repository, actId]);
  }
}
