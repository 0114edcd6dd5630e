import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import { TrackerError } from '../../platforms/tracker-client.js';
import { InstanceIdentity } from '../../store/instance-identity.service.js';
import { type TicketKey, describeTicket } from '../ticket-key.js';
import { buildFailureComment, carriesRunMarker, TicketCommentKind } from './failure-comment.js';
import { HostRateLimiter } from './host-rate-limiter.service.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import type { ProjectTracker } from './project-tracker.factory.js';
import { collectSecrets } from './secret-scrubber.js';
import { TicketCommentRecordsService } from './ticket-comment-records.service.js';

export interface FailedRun {
  runId: string;
  pipeline: string;
  error: string | null;
}

export type FailureCommentOutcome = 'posted' | 'already-posted' | 'run-deleted';

/**
 * Posts a failed run's error on its ticket exactly once, however often it is asked (a repeated
 * transition, a retried post, a second replica): claim the run's row in `ticket_comments`, look
 * on the ticket for a comment already carrying the run's hidden marker (a post whose answer was
 * lost), and only then post, recording the comment id.
 */
@Injectable()
export class FailureCommentPoster {
  private readonly logger = new Logger('LabelProjection');

  constructor(
    private readonly records: TicketCommentRecordsService,
    private readonly limiter: HostRateLimiter,
    private readonly config: ConfigService,
    private readonly instance: InstanceIdentity,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
  ) {}

  async postOnce(tracker: ProjectTracker, key: TicketKey, run: FailedRun): Promise<FailureCommentOutcome> {
    const kind = TicketCommentKind.Failure;
    const claim = await this.records.claim(run.runId, kind, key, this.instance.id);
    if (claim === 'posted') return 'already-posted';
    if (claim === 'gone') {
      // Deleted from the dashboard before its comment went out: once-only cannot be kept without the record.
      this.logger.log(`failure comment of run ${run.runId} not posted on ${describeTicket(key)}: the run was deleted`);
      return 'run-deleted';
    }
    if (claim === 'busy') {
      throw new TrackerError(`the failure comment of run ${run.runId} is being posted by another process`, tracker.platform, null, true);
    }
    try {
      const existing = (await tracker.client.listComments(key.ticket)).find((c) => carriesRunMarker(c.body, run.runId, kind));
      if (existing) {
        await this.records.markPosted(run.runId, kind, existing.id);
        this.logger.log(`failure comment of run ${run.runId} already on ${describeTicket(key)} (comment ${existing.id}); recorded`);
        return 'already-posted';
      }
      const body = buildFailureComment({
        platform: tracker.platform,
        runId: run.runId,
        pipeline: run.pipeline,
        error: run.error,
        secrets: collectSecrets(this.config.config, this.config.env),
        maxChars: this.options.commentMaxChars,
      });
      await this.limiter.take(tracker.platform, tracker.host);
      const id = await tracker.client.postComment(key.ticket, body);
      await this.records.markPosted(run.runId, kind, id);
      this.logger.log(`failure comment of run ${run.runId} posted on ${describeTicket(key)} (comment ${id})`);
      return 'posted';
    } catch (error) {
      await this.records.release(run.runId, kind, this.instance.id).catch(() => undefined);
      throw error;
    }
  }
}
