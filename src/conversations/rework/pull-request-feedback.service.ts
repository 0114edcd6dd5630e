import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import type { RepoConfig } from '../../config/service-config.js';
import { DatabaseService } from '../../database/database.service.js';
import { pullRequestConversationsFor } from '../../platforms/pull-request-hosts.js';
import { workBranchName } from '../../workspaces/work-branch.js';
import type { PullRequestFeedbackSource } from '../pull-request-feedback.js';
import type { PullRequestFeedback } from '../run-conversation.js';
import { reworkFeedback } from './feedback-selection.js';
import { openServicePullRequest } from './open-service-pull-request.js';
import { REWORK_OPTIONS, type ReworkOptions } from './rework.options.js';

type ReworkRun = Parameters<PullRequestFeedbackSource['feedbackFor']>[0];

/**
 * What the next attempt of a ticket reads on its service pull requests (spec, "Rework on a
 * service pull request" rule 1): for each repository of the project with an open pull request
 * from the work branch `service/<ticket>`, the comments written since the previous attempt
 * started and those of threads still open (feedback-selection.ts). A repository whose host
 * fails is logged and left out, so the run goes on with what the others said; a database that
 * cannot be read is an error. Pull requests with nothing to read are left out.
 */
@Injectable()
export class PullRequestFeedbackService implements PullRequestFeedbackSource {
  private readonly logger = new Logger('ReworkFeedback');

  constructor(
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
    @Inject(REWORK_OPTIONS) private readonly options: ReworkOptions,
  ) {}

  async feedbackFor(candidate: ReworkRun): Promise<PullRequestFeedback[]> {
    const project = this.config.config.projects[candidate.project];
    // A run without a ticket has no work branch, so no service pull request to read.
    if (!project || candidate.ticket === null) return [];
    const run = { ...candidate, ticket: candidate.ticket };
    const [since, recorded] = await Promise.all([this.previousAttemptStart(run), this.recordedOpen(run.project, run.ticket)]);
    const branch = workBranchName(run.ticket);
    const found = await Promise.all(project.repos.map(async (repo) => {
      try {
        return await this.fromRepository(repo, branch, recorded.get(repo.name) ?? [], since);
      } catch (error) {
        // Host clients' messages are redacted of the credential (TrackerHttp).
        this.logger.warn(`run ${run.runId}: review feedback of repository ${repo.name} left out: ${(error as Error).message}`);
        return null;
      }
    }));
    return found.filter((f): f is PullRequestFeedback => f !== null && f.items.length > 0);
  }

  private async fromRepository(repo: RepoConfig, branch: string, recorded: readonly number[], since: Date | null): Promise<PullRequestFeedback | null> {
    const open = await openServicePullRequest(repo, branch, recorded, this.options.http);
    if (!open) return null;
    const conversations = pullRequestConversationsFor(repo, this.options.http);
    const [self, items] = await Promise.all([conversations.self(), conversations.discussion(open.number)]);
    return { repo: repo.name, number: open.number, url: open.url, items: reworkFeedback(items, self, since) };
  }

  /** When the latest other attempt of the ticket started (one created before this run), or null. */
  private async previousAttemptStart(run: ReworkRun): Promise<Date | null> {
    const rows: { started_at: Date | null }[] = await this.db.dataSource.query(
      `SELECT max(started_at) AS started_at FROM runs
        WHERE platform = $1 AND project = $2 AND ticket = $3 AND id <> $4 AND started_at IS NOT NULL
          AND created_at <= COALESCE((SELECT created_at FROM runs WHERE id = $4), 'infinity')`,
      [run.platform, run.project, run.ticket, run.runId]);
    return rows[0]?.started_at ?? null;
  }

  /** The pull request numbers the ticket's runs recorded as open, newest first, by repository name. */
  private async recordedOpen(project: string, ticket: string): Promise<Map<string, number[]>> {
    const rows: { repo: string; number: number }[] = await this.db.dataSource.query(
      `SELECT repo, number FROM pull_requests WHERE project = $1 AND ticket = $2 AND state = 'open' ORDER BY updated_at DESC, id DESC`, [project, ticket]);
    const byRepo = new Map<string, number[]>();
    for (const row of rows) byRepo.set(row.repo, [...(byRepo.get(row.repo) ?? []), row.number]);
    return byRepo;
  }
}
