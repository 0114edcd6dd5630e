import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { collectSecrets, scrubSecrets } from '../../common/secret-scrubber.js';
import { ConfigService } from '../../config/config.service.js';
import { DatabaseService } from '../../database/database.service.js';
import { TicketState } from '../../database/entities/ticket.entity.js';
import { RunEventKind } from '../../pipelines/run-event-kind.js';
import { RunEventsService } from '../../runs/run-events.service.js';
import { describeTicket } from '../../tickets/ticket-key.js';
import { type TransitionEvent, TicketLifecycleService } from '../../tickets/ticket-lifecycle.service.js';
import { WorkspacesService } from '../../workspaces/workspaces.service.js';
import { buildPullRequestHandBack, handBackMarker } from './hand-back-pull-request-comment.js';
import { RunQuestionsService } from './run-questions.service.js';

/** How long shutdown waits for notes being posted. */
const SHUTDOWN_WAIT_MS = 5_000;

/**
 * Posts a parked run's hand-back on each open pull request of its ticket (the `pull_requests`
 * rows of the ticket, state open: its work branch `service/<ticket>` in each repository), through
 * the repository host's review client, so a reviewer can answer there. Best effort, on the
 * replica that parked the run: a failure is logged and recorded as a run event, never retried
 * (the ticket's own comment is the one that is posted for sure).
 */
@Injectable()
export class HandBackPullRequestNotifier implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('HandBack');
  private readonly posting = new Set<Promise<void>>();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly lifecycle: TicketLifecycleService,
    private readonly questions: RunQuestionsService,
    private readonly workspaces: WorkspacesService,
    private readonly events: RunEventsService,
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.lifecycle.onTransition((event) => {
      if (event.to !== TicketState.Parked) return;
      // Never holds up the transition's other listeners.
      const posting = this.post(event).catch((error: Error) => this.logger.warn(`hand-back of run ${event.runId} not posted on its pull requests: ${error.message}`));
      this.posting.add(posting);
      void posting.finally(() => this.posting.delete(posting));
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

  private async post(event: TransitionEvent): Promise<void> {
    const { key, runId } = event;
    const question = await this.questions.find(runId);
    if (!question) return;
    const open: { repo: string; number: number }[] = await this.db.dataSource.query(
      `SELECT repo, number FROM pull_requests WHERE project = $1 AND ticket = $2 AND state = 'open' ORDER BY repo, number`, [key.project, key.ticket]);
    const secrets = collectSecrets(this.config.config, this.config.env);
    const body = buildPullRequestHandBack({ runId, pipeline: event.pipeline, ticket: key.ticket, kind: question.kind, question: question.question, secrets });
    const repos = this.config.config.projects[key.project]?.repos ?? [];
    for (const { repo: name, number } of open) {
      const repo = repos.find((r) => r.name === name);
      try {
        if (!repo) throw new Error(`repository ${name} is no longer declared in project ${key.project}`);
        await this.workspaces.reviewsFor(repo).upsertComment(number, body, handBackMarker(runId));
        this.logger.log(`hand-back of run ${runId} (${describeTicket(key)}) posted on pull request #${number} of ${name}`);
      } catch (error) {
        const text = scrubSecrets(`the hand-back could not be posted on pull request #${number} of ${name}: ${(error as Error).message}`, secrets);
        this.logger.warn(`run ${runId}: ${text}`);
        await this.events.append(runId, RunEventKind.HandBack, text).catch(() => undefined);
      }
    }
  }
}
