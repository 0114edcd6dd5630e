import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { clipText } from '../common/clip-text.js';
import { withTimeout } from '../common/with-timeout.js';
import { isDatabaseFault } from '../database/database-fault.js';
import { DatabaseService } from '../database/database.service.js';
import type { DeliveryOutcome } from './delivery-outcome.js';

/** How a trigger reached the service: a webhook delivery, or the poller reading the tracker. */
export const TriggerSource = { Webhook: 'webhook', Poll: 'poll' } as const;
export type TriggerSource = (typeof TriggerSource)[keyof typeof TriggerSource];

export interface TriggerLogEntry {
  receivedAt: Date;
  /** Default `webhook`. A poll's entry has event `poll`, no delivery id and status code 0 (no HTTP answer). */
  source?: TriggerSource;
  platform: string | null;
  event: string | null;
  deliveryId: string | null;
  project: string | null;
  ticket: string | null;
  outcome: DeliveryOutcome;
  reason: string | null;
  statusCode: number;
}

const FLUSH_EVERY_MS = 200;
const FLUSH_AT = 500;
/** While the database is away, entries wait here; beyond either bound the oldest are dropped (and counted). */
const MAX_BUFFERED = 20_000;
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Short fields are indexed (trigger_log_ticket): a btree row must stay under ~2.7 kB. */
const SHORT_TEXT = 256;
const LONG_TEXT = 1000;
const MAX_BACKOFF_MS = 5_000;
const SHUTDOWN_DRAIN_MS = 5_000;
/** Losses are logged at once, then summed up at most this often, so a flood cannot flood the log. */
const LOSS_REPORT_EVERY_MS = 60_000;
const COLUMNS = 10;
const INSERT = 'INSERT INTO trigger_log (received_at, source, platform, event, delivery_id, project, ticket, outcome, reason, status_code) VALUES';

interface Buffered {
  entry: TriggerLogEntry;
  bytes: number;
}

/**
 * The trigger log: every delivery with its outcome, and every polled ticket that led to a claim
 * attempt or a rejection (`source` `poll`). Written in batches off the request path, so
 * a slow or absent database never slows or fails a webhook answer. Fields come from unauthenticated
 * requests: they are cleaned and clipped on the way in, and a row the database still refuses is
 * dropped rather than retried, so one bad delivery never holds up the ones after it.
 */
@Injectable()
export class TriggerLogService implements OnApplicationShutdown {
  private readonly logger = new Logger('TriggerLog');
  private buffer: Buffered[] = [];
  private bufferedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  /** Consecutive failed writes (connection-type errors); drives the backoff and the once-per-streak log. */
  private failures = 0;
  /** Entries taken for the write under way: not in the buffer, not yet known to be stored. */
  private inFlight = 0;
  private closing = false;
  private dropped = 0;
  private rejected = 0;
  private rejectedBecause = '';
  private lossesReportedAt = 0;
  private readonly unsubscribe: () => void;

  constructor(private readonly db: DatabaseService) {
    // Entries recorded before the database came up are written as soon as it does.
    this.unsubscribe = db.onStatus((status) => {
      if (status.state === 'ready' && this.buffer.length > 0) void this.flush();
    });
  }

  record(entry: TriggerLogEntry): void {
    const clean = sanitize(entry);
    const bytes = sizeOf(clean);
    this.buffer.push({ entry: clean, bytes });
    this.bufferedBytes += bytes;
    this.bound();
    // Not ready: the status listener flushes. Failing: the backoff timer does.
    if (this.closing || !this.db.isReady || this.failures > 0) return;
    if (this.buffer.length >= FLUSH_AT) void this.flush();
    else this.schedule(FLUSH_EVERY_MS);
  }

  /** Writes one batch of what is buffered; entries stay buffered when the database is not ready. */
  flush(): Promise<void> {
    this.clearTimer();
    this.flushing ??= this.write().finally(() => {
      this.flushing = null;
      this.reportLosses(false);
      if (this.closing || this.buffer.length === 0 || !this.db.isReady) return;
      if (this.failures > 0) this.schedule(this.backoffMs(), true);
      else this.schedule(this.buffer.length >= FLUSH_AT ? 0 : FLUSH_EVERY_MS);
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.buffer.length === 0 || !this.db.isReady) return;
    const batch = this.take(FLUSH_AT);
    this.inFlight = batch.length;
    try {
      await this.insert(batch);
      this.succeeded();
    } catch (error) {
      if (await this.databaseAtFault(error)) this.failed(batch, error);
      else await this.insertOneByOne(batch);
    } finally {
      this.inFlight = 0;
    }
  }

  /** A refused batch: find the rows at fault, drop and count them, write the rest. */
  private async insertOneByOne(batch: Buffered[]): Promise<void> {
    for (let i = 0; i < batch.length; i++) {
      try {
        await this.insert([batch[i]!]);
      } catch (error) {
        if (await this.databaseAtFault(error)) return this.failed(batch.slice(i), error);
        this.rejected += 1;
        this.rejectedBecause ||= (error as Error).message;
      }
    }
    this.succeeded();
  }

  private async insert(rows: Buffered[]): Promise<void> {
    const values: unknown[] = [];
    const tuples = rows.map(({ entry: e }, i) => {
      values.push(e.receivedAt, e.source ?? TriggerSource.Webhook, e.platform, e.event, e.deliveryId, e.project, e.ticket, e.outcome, e.reason, e.statusCode);
      return `(${Array.from({ length: COLUMNS }, (_, c) => `$${i * COLUMNS + c + 1}`).join(', ')})`;
    });
    await this.db.dataSource.query(`${INSERT} ${tuples.join(', ')}`, values);
  }

  /**
   * Whether the database (or the way to it) failed rather than the rows (see isDatabaseFault).
   * When PostgreSQL gave no answer at all (socket, pool, a value the driver cannot send), the
   * database is asked directly.
   */
  private async databaseAtFault(error: unknown): Promise<boolean> {
    const fault = isDatabaseFault(error);
    if (fault !== null) return fault;
    try {
      await this.db.dataSource.query('SELECT 1');
      return false;
    } catch {
      return true;
    }
  }

  private succeeded(): void {
    if (this.failures > 0) this.logger.log(`trigger log writes resumed after ${this.failures} failed attempt(s)`);
    this.failures = 0;
  }

  /** The database is unreachable, not the rows at fault: keep them, in order, and back off. */
  private failed(rows: Buffered[], error: unknown): void {
    this.buffer.unshift(...rows);
    this.bufferedBytes += rows.reduce((sum, b) => sum + b.bytes, 0);
    this.bound();
    if (this.failures === 0) {
      this.logger.warn(`trigger log writes failing; keeping ${this.buffer.length} entries, retrying with backoff: ${(error as Error).message}`);
    }
    this.failures += 1;
  }

  private take(n: number): Buffered[] {
    const taken = this.buffer.splice(0, n);
    for (const b of taken) this.bufferedBytes -= b.bytes;
    return taken;
  }

  /** Drops the oldest entries beyond the count and byte bounds. */
  private bound(): void {
    let over = 0;
    while (this.buffer.length - over > MAX_BUFFERED || (this.bufferedBytes > MAX_BUFFERED_BYTES && this.buffer.length - over > 1)) {
      this.bufferedBytes -= this.buffer[over]!.bytes;
      over += 1;
    }
    if (over === 0) return;
    this.buffer.splice(0, over);
    this.dropped += over;
    this.reportLosses(false);
  }

  /** Logs what was lost since the last report (buffer overflow, rows that could not be stored). */
  private reportLosses(force: boolean): void {
    if (this.dropped === 0 && this.rejected === 0) return;
    if (!force && Date.now() - this.lossesReportedAt < LOSS_REPORT_EVERY_MS) return;
    const parts: string[] = [];
    if (this.dropped > 0) parts.push(`${this.dropped} dropped (buffer full while the database was unavailable or failing)`);
    if (this.rejected > 0) parts.push(`${this.rejected} could not be stored and were dropped (first error: ${this.rejectedBecause})`);
    this.logger.warn(`trigger log entries lost: ${parts.join('; ')}`);
    this.dropped = 0;
    this.rejected = 0;
    this.rejectedBecause = '';
    this.lossesReportedAt = Date.now();
  }

  private backoffMs(): number {
    return Math.min(FLUSH_EVERY_MS * 2 ** this.failures, MAX_BACKOFF_MS);
  }

  private schedule(delayMs: number, replace = false): void {
    if (replace) this.clearTimer();
    this.timer ??= setTimeout(() => void this.flush(), delayMs).unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Drains the buffer (one flush writes one batch) until empty or the deadline; reports what is left. */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.unsubscribe();
    this.clearTimer();
    const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
    while ((this.buffer.length > 0 || this.flushing) && this.db.isReady && Date.now() < deadline) {
      if (this.failures > 0) await sleep(Math.min(this.backoffMs(), deadline - Date.now()));
      if (Date.now() >= deadline) break;
      // A hung query must not hold shutdown, nor its timer the exit.
      await withTimeout(this.flush(), Math.max(deadline - Date.now(), 0), 'trigger log flush').catch(() => undefined);
    }
    const unwritten = this.buffer.length + this.inFlight;
    if (unwritten > 0) {
      const why = this.db.isReady ? `not written within ${SHUTDOWN_DRAIN_MS} ms` : 'the database is not ready';
      this.logger.warn(`${unwritten} trigger log entries lost at shutdown: ${why}`);
    }
    this.reportLosses(true);
  }
}

/**
 * PostgreSQL refuses NUL in text, and `trigger_log_ticket` refuses index rows over ~2.7 kB: both
 * would fail the whole batch. Every kept string is a fresh copy: a V8 substring keeps its parent
 * (maybe a whole attacker-sized body) alive, which would make the buffer's byte bound a fiction.
 */
function sanitize(e: TriggerLogEntry): TriggerLogEntry {
  return {
    receivedAt: e.receivedAt,
    source: e.source ?? TriggerSource.Webhook,
    platform: clip(e.platform, SHORT_TEXT),
    event: clip(e.event, SHORT_TEXT),
    deliveryId: clip(e.deliveryId, SHORT_TEXT),
    project: clip(e.project, SHORT_TEXT),
    ticket: clip(e.ticket, SHORT_TEXT),
    outcome: clip(e.outcome, SHORT_TEXT),
    reason: clip(e.reason, LONG_TEXT),
    statusCode: e.statusCode,
  };
}

function clip<T extends string | null>(value: T, max: number): T {
  if (value === null || value === undefined) return value;
  // Always a copy: even a short value may be a slice (a trim, a cut) of an attacker-sized string.
  return Buffer.from(clipText(String(value).replaceAll('\0', ''), max)).toString() as T;
}

/** Rough heap bytes of an entry's text (UTF-16), for the buffer's byte bound. */
function sizeOf(e: TriggerLogEntry): number {
  const chars = [e.platform, e.event, e.deliveryId, e.project, e.ticket, e.outcome, e.reason].reduce((n, s) => n + (s?.length ?? 0), 0);
  return 2 * chars;
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, Math.max(ms, 0)));
}
