import type { DataSource } from 'typeorm';
import type { RunEventSink } from '../pipelines/pipeline.js';
import type { RunEventKind } from '../pipelines/run-event-kind.js';
import type { RunFeedPublisher } from './run-feed.publisher.js';

const FLUSH_EVERY_MS = 250;
const FLUSH_AT = 200;

interface PendingEvent {
  seq: number;
  at: Date;
  kind: RunEventKind;
  sandbox: string | null;
  text: string;
}

/**
 * A run's event log while its consumer runs it: numbers events, publishes each on the live feed at
 * once and writes them to `run_events` in batches (every 250 ms or 200 events, and on close).
 */
export class RunEventWriter implements RunEventSink {
  private pending: PendingEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly runId: string,
    private seq: number,
    private readonly db: () => DataSource,
    private readonly feed: RunFeedPublisher,
    private readonly onError: (error: Error) => void,
  ) {}

  emit(kind: RunEventKind, sandbox: string | null, text: string): void {
    const event = { seq: ++this.seq, at: new Date(), kind, sandbox, text };
    this.pending.push(event);
    this.feed.publish({ run: this.runId, seq: event.seq, at: event.at.toISOString(), kind, sandbox, text });
    if (this.pending.length >= FLUSH_AT) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
  }

  /** Writes what is pending; resolves when everything emitted so far is stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) {
      this.writing = this.writing.then(() => this.write(batch)).catch((error: Error) => this.onError(error));
    }
    return this.writing;
  }

  private async write(batch: PendingEvent[]): Promise<void> {
    const values: unknown[] = [];
    const rows = batch.map((e, i) => {
      values.push(this.runId, e.seq, e.at, e.kind, e.sandbox, e.text);
      const b = i * 6;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`;
    });
    await this.db().query(`INSERT INTO run_events (run_id, seq, at, kind, sandbox, text) VALUES ${rows.join(', ')}
      ON CONFLICT (run_id, seq) DO NOTHING`, values);
  }
}
