import { Inject, Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { RunQuestionsService, toHandBack } from './hand-back/run-questions.service.js';
import { type ConversationRun, PULL_REQUEST_FEEDBACK, type PullRequestFeedbackSource } from './pull-request-feedback.js';
import type { RunConversation } from './run-conversation.js';

/**
 * What people said to a run beyond its ticket, read when its agent starts: the ticket's earlier
 * hand-backs and their answers, review feedback on its service pull requests, and the
 * instructions of the command that started it.
 */
@Injectable()
export class RunConversationService {
  constructor(
    private readonly db: DatabaseService,
    private readonly questions: RunQuestionsService,
    @Inject(PULL_REQUEST_FEEDBACK) private readonly feedback: PullRequestFeedbackSource,
  ) {}

  async forRun(run: ConversationRun): Promise<RunConversation> {
    const { platform, project, ticket } = run;
    const [history, rows, feedback] = await Promise.all([
      ticket === null ? Promise.resolve([]) : this.questions.historyOf({ platform, project, ticket }),
      this.db.dataSource.query('SELECT instructions FROM runs WHERE id = $1', [run.runId]) as Promise<{ instructions: string | null }[]>,
      this.feedback.feedbackFor(run),
    ]);
    return { handBacks: history.map(toHandBack), feedback, instructions: rows[0]?.instructions ?? null };
  }
}
