import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

export interface TriggerLogEntry {
  receivedAt: Date;
  platform: string | null;
  event: string | null;
  deliveryId: string | null;
  project: string | null;
  ticket: string | null;
  outcome: string;
  reason: string | null;
  statusCode: number;
}

const FLUSH_EVERY_MS = 200;
const FLUSH_AT = 500;
/** While the database is away, entries wait here; beyond this the oldest are dropped (and counted). */
const MAX_BUFFERED = 20_000;
const COLUMNS = 9;

/**
 * The trigger log: every delivery with its outcome. Written in batches off the request path, so
 * a slow or absent database never slows or fails a webhook answer.
 */
@Injectable()
export class TriggerLogService implements OnApplicationShutdown {
  private readonly logger = new Logger('TriggerLog');
  private buffer: TriggerLogEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private dropped = 0;

  constructor(private readonly db: DatabaseService) {}

  record(entry: TriggerLogEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length > MAX_BUFFERED) {
      this.dropped += this.buffer.length - MAX_BUFFERED;
      this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    }
    if (this.buffer.length >= FLUSH_AT) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
  }

  /** Writes what is buffered; entries stay buffered when the database is not ready. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushing ??= this.write().finally(() => {
      this.flushing = null;
      if (this.buffer.length > 0 && this.db.isReady) this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.buffer.length === 0 || !this.db.isReady) return;
    const batch = this.buffer.splice(0, FLUSH_AT);
    const values: unknown[] = [];
    const rows = batch.map((e, i) => {
      values.push(e.receivedAt, e.platform, e.event, e.deliveryId, e.project, e.ticket, e.outcome, e.reason, e.statusCode);
      return `(${Array.from({ length: COLUMNS }, (_, c) => `$${i * COLUMNS + c + 1}`).join(', ')})`;
    });
    try {
      await this.db.dataSource.query(
        `INSERT INTO trigger_log (received_at, platform, event, delivery_id, project, ticket, outcome, reason, status_code) VALUES ${rows.join(', ')}`,
        values,
      );
      if (this.dropped > 0) {
        this.logger.warn(`${this.dropped} trigger log entries were dropped while the database was unavailable`);
        this.dropped = 0;
      }
    } catch (error) {
      this.buffer.unshift(...batch);
      this.logger.warn(`trigger log write failed (will retry): ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
