import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { RunEventKind } from '../pipelines/run-event-kind.js';
import { insertRunEvents } from './insert-run-events.js';
import { RunEventWriter } from './run-event-writer.js';
import { RunFeedPublisher } from './run-feed.publisher.js';

/** Run events: stored in `run_events` (the record) and published on the live run feed. */
@Injectable()
export class RunEventsService {
  private readonly logger = new Logger('RunEvents');

  constructor(
    private readonly db: DatabaseService,
    private readonly feed: RunFeedPublisher,
  ) {}

  /** A writer for the run's events (numbers continue the run's counter, so earlier events stay). */
  async open(runId: string): Promise<RunEventWriter> {
    return new RunEventWriter(runId, () => this.db.dataSource, this.feed,
      (error) => this.logger.warn(`events of run ${runId} could not be stored: ${error.message}`));
  }

  /** One event written outside a consumer (e.g. by the stale-job detector, when the consumer is gone). */
  async append(runId: string, kind: RunEventKind, text: string): Promise<void> {
    const at = new Date();
    const [seq] = await insertRunEvents(this.db.dataSource, runId, [{ at, kind, sandbox: null, text }]);
    if (seq !== undefined) this.feed.publish({ run: runId, seq, at: at.toISOString(), kind, sandbox: null, text });
  }
}
