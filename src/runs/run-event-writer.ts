import type { DataSource } from 'typeorm';
import type { RunEventSink } from '../pipelines/pipeline.js';
import type { RunEventKind } from '../pipelines/run-event-kind.js';
import { type NewRunEvent, insertRunEvents } from './insert-run-events.js';
import type { RunFeedPublisher } from './run-feed.publisher.js';

const FLUSH_EVERY_MS = 250;
const FLUSH_AT = 200;

type PendingEvent = NewRunEvent & { kind: RunEventKind };

/**
 * A run's event log while its consumer runs it: collects events and writes them to `run_events`
 * in batches (every 250 ms or 200 events, and on close), numbered from the run's counter so that
 * no other writer can take their numbers; each is published on the live feed once stored, with
 * its number.
 */
export class RunEventWriter implements RunEventSink {
  private pending: PendingEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly runId: string,
    private readonly db: () => DataSource,
    private readonly feed: RunFeedPublisher,
    private readonly onError: (error: Error) => void,
  ) {}

  emit(kind: RunEventKind, sandbox: string | null, text: string): void {
    this.pending.push({ at: new Date(), kind, sandbox, text });
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
    const seqs = await insertRunEvents(this.db(), this.runId, batch);
    batch.forEach((e, i) => {
      this.feed.publish({ run: this.runId, seq: seqs[i] ?? null, at: e.at.toISOString(), kind: e.kind, sandbox: e.sandbox, text: e.text });
    });
  }
}
