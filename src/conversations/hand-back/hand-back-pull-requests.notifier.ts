import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { collectSecrets, scrubSecrets } from '../../common/secret-scrubber.js';
import { ConfigService } from '../../config/config.service.js';
import { DatabaseService } from '../../database/database.service.js';
import { TicketState } from '../../database/entities/ticket.entity.js';
import type { Platform } from '../../platforms/platform.js';
import { DEFAULT_PIPELINE } from '../../pipelines/built-in-pipelines.js';
import { RunEventKind } from '../../pipelines/run-event-kind.js';
import { RunEventsService } from '../../runs/run-events.service.js';
import { describeTicket } from '../../tickets/ticket-key.js';
import { TicketLifecycleService } from '../../tickets/ticket-lifecycle.service.js';
import { workBranchName } from '../../workspaces/work-branch.js';
import { WorkspacesService } from '../../workspaces/workspaces.service.js';
import { PullRequestFeedbackService } from '../rework/pull-request-feedback.service.js';
import { buildPullRequestHandBack, handBackMarker } from './hand-back-pull-request-comment.js';
import { RunQuestionsService } from './run-questions.service.js';

/** How long shutdown waits for notes being posted. */
const SHUTDOWN_WAIT_MS = 5_000;

/**
 * Posts a parked run's hand-back on each open service pull request of its ticket (spec, "Rework on
 * a service pull request" rule 3), found as the run finds them (PullRequestFeedbackService: the
 * numbers its runs recorded, then the host's own search from the work branch `service/<ticket>`),
 * through the repository host's review client, so a reviewer can answer there. The note carries
 * the run's hand-back marker and is found-or-updated by it, so posting again for the same park
 * (postHandBack) edits the note instead of adding one. Best effort, on the replica that parked
 * the run: a failure is logged and recorded as a run event, never retried (the ticket's own
 * comment is the one that is posted for sure).
 */
@Injectable()
export class HandBackPullRequestNotifier implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('HandBack');
  private readonly posting = new Set<Promise<void>>();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly lifecycle: TicketLifecycleService,
    private readonly questions: RunQuestionsService,
    private readonly servicePullRequests: PullRequestFeedbackService,
    private readonly workspaces: WorkspacesService,
    private readonly events: RunEventsService,
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.lifecycle.onTransition((event) => {
      // Never holds up the transition's other listeners.
      if (event.to === TicketState.Parked) void this.postHandBack(event.runId);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await Promise.race([Promise.allSettled([...this.posting]), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref())]);
  }

  /** Resolves once every note being posted is done (tests). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.posting]);
  }

  /**
   * Posts (or edits) the hand-back of parked run `runId` on the ticket's open service pull
   * requests; nothing once its question is answered. Never rejects: what fails is logged.
   */
  postHandBack(runId: string): Promise<void> {
    const posting = this.post(runId).catch((error: Error) => this.logger.warn(`hand-back of run ${runId} not posted on its pull requests: ${error.message}`));
    this.posting.add(posting);
    void posting.finally(() => this.posting.delete(posting));
    return posting;
  }

  private async post(runId: string): Promise<void> {
    const question = await this.questions.find(runId);
    if (!question || question.answeredAt !== null) return;
    const key = { platform: question.platform as Platform, project: question.project, ticket: question.ticket };
    const rows: { pipeline: string }[] = await this.db.dataSource.query('SELECT pipeline FROM runs WHERE id = $1', [runId]);
    const pipeline = rows[0]?.pipeline ?? DEFAULT_PIPELINE;
    const secrets = collectSecrets(this.config.config, this.config.env);
    const failed = async (why: string, error: unknown) => {
      const text = scrubSecrets(`${why}: ${(error as Error).message}`, secrets);
      this.logger.warn(`run ${runId}: ${text}`);
      await this.events.append(runId, RunEventKind.HandBack, text).catch(() => undefined);
    };
    for (const lookup of await this.servicePullRequests.openPullRequests(key.project, key.ticket)) {
      const { repo } = lookup;
      if ('error' in lookup) {
        await failed(`the hand-back could not be posted: the open pull request of ${workBranchName(key.ticket)} in ${repo.name} could not be found`, lookup.error);
        continue;
      }
      if (!lookup.pullRequest) continue;
      const { number } = lookup.pullRequest;
      const body = buildPullRequestHandBack({ runId, pipeline, ticket: key.ticket, kind: question.kind, question: question.question, secrets, platform: repo.platform });
      try {
        await this.workspaces.reviewsFor(repo).upsertComment(number, body, handBackMarker(runId));
        this.logger.log(`hand-back of run ${runId} (${describeTicket(key)}) posted on pull request #${number} of ${repo.name}`);
      } catch (error) {
        await failed(`the hand-back could not be posted on pull request #${number} of ${repo.name}`, error);
      }
    }
  }
}
