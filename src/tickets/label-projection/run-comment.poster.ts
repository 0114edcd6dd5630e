import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import { DatabaseService } from '../../database/database.service.js';
import { TrackerError } from '../../platforms/tracker-client.js';
import { InstanceIdentity } from '../../store/instance-identity.service.js';
import { type TicketKey, describeTicket } from '../ticket-key.js';
import { buildFailureComment, carriesRunMarker, TicketCommentKind } from './failure-comment.js';
import { buildHandBackComment, type HandBackKind } from './hand-back-comment.js';
import { HostRateLimiter } from './host-rate-limiter.service.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import type { ProjectTracker } from './project-tracker.factory.js';
import { buildPullRequestsComment, type ListedPullRequest } from './pull-requests-comment.js';
import { collectSecrets } from '../../common/secret-scrubber.js';
import { TicketCommentRecordsService } from './ticket-comment-records.service.js';

/** A comment a run posts on its ticket once: its failure, (on success) the pull requests it opened, or its hand-back. */
export interface RunComment {
  kind: TicketCommentKind;
  runId: string;
  pipeline: string;
  /** The failure's error (failure comments only). */
  error: string | null;
}

/** Kept for the failure path's callers: a failure comment. */
export type FailedRun = Omit<RunComment, 'kind'>;

/** `nothing-to-post`: a successful run that opened no pull request (or a hand-back without its question) has no comment. */
export type RunCommentOutcome = 'posted' | 'already-posted' | 'run-deleted' | 'nothing-to-post';

export function runCommentKey(comment: Pick<RunComment, 'kind' | 'runId'>): string {
  return `${comment.kind}:${comment.runId}`;
}

/**
 * Posts a run's comment on its ticket exactly once, however often it is asked (a repeated
 * transition, a retried post, a second replica): claim the run's row in `ticket_comments`, look
 * on the ticket for a comment already carrying the run's hidden marker (a post whose answer was
 * lost), and only then post, recording the comment id.
 */
@Injectable()
export class RunCommentPoster {
  private readonly logger = new Logger('LabelProjection');

  constructor(
    private readonly records: TicketCommentRecordsService,
    private readonly limiter: HostRateLimiter,
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
    private readonly instance: InstanceIdentity,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
  ) {}

  async postOnce(tracker: ProjectTracker, key: TicketKey, comment: RunComment): Promise<RunCommentOutcome> {
    const { kind, runId } = comment;
    let body: string;
    if (kind === TicketCommentKind.PullRequests) {
      const prs: ListedPullRequest[] = await this.db.dataSource.query(
        'SELECT repo, url FROM pull_requests WHERE run_id = $1 ORDER BY repo, number', [runId]);
      if (prs.length === 0) return 'nothing-to-post';
      body = buildPullRequestsComment(tracker.platform, comment, prs);
    } else if (kind === TicketCommentKind.HandBack) {
      const asked: { kind: HandBackKind; question: string }[] = await this.db.dataSource.query(
        'SELECT kind, question FROM run_questions WHERE run_id = $1', [runId]);
      if (asked.length === 0) return 'nothing-to-post';
      body = buildHandBackComment({
        platform: tracker.platform, runId, pipeline: comment.pipeline, kind: asked[0]!.kind, question: asked[0]!.question,
        secrets: collectSecrets(this.config.config, this.config.env), maxChars: this.options.commentMaxChars,
      });
    } else {
      body = buildFailureComment({
        platform: tracker.platform,
        runId,
        pipeline: comment.pipeline,
        error: comment.error,
        secrets: collectSecrets(this.config.config, this.config.env),
        maxChars: this.options.commentMaxChars,
      });
    }
    const what = `${kind} comment of run ${runId}`;
    const claim = await this.records.claim(runId, kind, key, this.instance.id);
    if (claim === 'posted') return 'already-posted';
    if (claim === 'gone') {
      // Deleted from the dashboard before its comment went out: once-only cannot be kept without the record.
      this.logger.log(`${what} not posted on ${describeTicket(key)}: the run was deleted`);
      return 'run-deleted';
    }
    if (claim === 'busy') {
      throw new TrackerError(`the ${what} is being posted by another process`, tracker.platform, null, true);
    }
    try {
      const existing = (await tracker.client.listComments(key.ticket)).find((c) => carriesRunMarker(c.body, runId, kind));
      if (existing) {
        await this.records.markPosted(runId, kind, existing.id);
        this.logger.log(`${what} already on ${describeTicket(key)} (comment ${existing.id}); recorded`);
        return 'already-posted';
      }
      await this.limiter.take(tracker.platform, tracker.host);
      const id = await tracker.client.postComment(key.ticket, body);
      await this.records.markPosted(runId, kind, id);
      this.logger.log(`${what} posted on ${describeTicket(key)} (comment ${id})`);
      return 'posted';
    } catch (error) {
      await this.records.release(runId, kind, this.instance.id).catch(() => undefined);
      throw error;
    }
  }
}
