import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { TicketState } from '../database/entities/ticket.entity.js';
import type { Platform } from '../platforms/platform.js';
import type { TicketRecord } from './rerun-rule.js';

interface Row {
  ticket: string;
  state: TicketState;
  run_id: string | null;
  updated_at: Date;
  run_created_at: Date | null;
}

/** The database's view of a cycle's polled tickets, read in one query (the re-run rule's input). */
@Injectable()
export class TicketRecordsService {
  constructor(private readonly db: DatabaseService) {}

  /** Ticket id → its record; a ticket the service has never seen is absent. */
  async of(platform: Platform, project: string, tickets: readonly string[]): Promise<Map<string, TicketRecord>> {
    if (tickets.length === 0) return new Map();
    const rows: Row[] = await this.db.dataSource.query(
      `SELECT t.ticket, t.state, t.run_id, t.updated_at, r.created_at AS run_created_at
       FROM tickets t LEFT JOIN runs r ON r.id = t.run_id
       WHERE t.platform = $1 AND t.project = $2 AND t.ticket = ANY($3::text[])`,
      [platform, project, tickets]);
    return new Map(rows.map((row) => [row.ticket, {
      state: row.state,
      runId: row.run_id,
      lastRunCreatedAt: row.run_created_at ? new Date(row.run_created_at) : null,
      updatedAt: new Date(row.updated_at),
    }]));
  }
}
