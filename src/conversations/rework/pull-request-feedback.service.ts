import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import type { RepoConfig } from '../../config/service-config.js';
import { DatabaseService } from '../../database/database.service.js';
import { pullRequestConversationsFor } from '../../platforms/pull-request-hosts.js';
import { workBranchName } from '../../workspaces/work-branch.js';
import type { PullRequestFeedbackSource } from '../pull-request-feedback.js';
import type { PullRequestFeedback } from '../run-conversation.js';
import { reworkFeedback } from './feedback-selection.js';
import { type OpenPullRequest, openServicePullRequest } from './open-service-pull-request.js';
import { REWORK_OPTIONS, type ReworkOptions } from './rework.options.js';

type ReworkRun = Parameters<PullRequestFeedbackSource['feedbackFor']>[0];

/** One repository's open service pull request of a ticket (null: none), or why the host could not say. */
export type ServicePullRequestLookup = { repo: RepoConfig; pullRequest: OpenPullRequest | null } | { repo: RepoConfig; error: Error };

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
    // A run without a ticket has no work branch, so no service pull request to read.
    if (!this.config.config.projects[candidate.project] || candidate.ticket === null) return [];
    const run = { ...candidate, ticket: candidate.ticket };
    const [since, lookups] = await Promise.all([this.previousAttemptStart(run), this.openPullRequests(run.project, run.ticket)]);
    const found = await Promise.all(lookups.map(async (lookup) => {
      try {
        if ('error' in lookup) throw lookup.error;
        return lookup.pullRequest && (await this.fromPullRequest(lookup.repo, lookup.pullRequest, since));
      } catch (error) {
        // Host clients' messages are redacted of the credential (TrackerHttp).
        this.logger.warn(`run ${run.runId}: review feedback of repository ${lookup.repo.name} left out: ${(error as Error).message}`);
        return null;
      }
    }));
    return found.filter((f): f is PullRequestFeedback => f !== null && f.items.length > 0);
  }

  /**
   * The ticket's open service pull requests, one lookup per repository of the project, found as
   * a run finds them (openServicePullRequest: the numbers its runs recorded, then the host's own
   * search from the work branch), so one opened before this installation recorded it counts too.
   * A repository whose host fails carries its error; a database that cannot be read is an error.
   */
  async openPullRequests(projectName: string, ticket: string): Promise<ServicePullRequestLookup[]> {
    const project = this.config.config.projects[projectName];
    if (!project) return [];
    const recorded = await this.recordedOpen(projectName, ticket);
    const branch = workBranchName(ticket);
    return Promise.all(project.repos.map(async (repo): Promise<ServicePullRequestLookup> => {
      try {
        return { repo, pullRequest: await openServicePullRequest(repo, branch, recorded.get(repo.name) ?? [], this.options.http) };
      } catch (error) {
        return { repo, error: error as Error };
      }
    }));
  }

  private async fromPullRequest(repo: RepoConfig, open: OpenPullRequest, since: Date | null): Promise<PullRequestFeedback> {
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
