import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { Platform } from '../platforms/platform.js';

/** Where a project's polling left off (table `poll_cursors`). */
export interface PollCursor {
  /** Start of the last cycle that succeeded: the next asks for tickets updated since (minus the overlap). */
  cursor: Date;
  lastFullSweepAt: Date | null;
}

/** The cursors in the database, so a new leader carries on where the old one stopped. */
@Injectable()
export class PollCursorsService {
  constructor(private readonly db: DatabaseService) {}

  async read(platform: Platform, project: string): Promise<PollCursor | null> {
    const rows: { cursor: Date; last_full_sweep_at: Date | null }[] = await this.db.dataSource.query(
      'SELECT cursor, last_full_sweep_at FROM poll_cursors WHERE platform = $1 AND project = $2', [platform, project]);
    const row = rows[0];
    return row ? { cursor: new Date(row.cursor), lastFullSweepAt: row.last_full_sweep_at ? new Date(row.last_full_sweep_at) : null } : null;
  }

  /** After a whole cycle succeeded (never before: a failed cycle's tickets are asked for again). */
  async write(platform: Platform, project: string, cursor: PollCursor): Promise<void> {
    await this.db.dataSource.query(
      `INSERT INTO poll_cursors (platform, project, cursor, last_full_sweep_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (platform, project) DO UPDATE SET cursor = EXCLUDED.cursor, last_full_sweep_at = EXCLUDED.last_full_sweep_at, updated_at = now()`,
      [platform, project, cursor.cursor, cursor.lastFullSweepAt]);
  }
}
