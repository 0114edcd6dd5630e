import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import type { PullRequestRef } from '../../platforms/pull-request-host.js';
import { RunChangeNotifier } from '../../runs/changes/run-change-notifier.js';
import type { PublishedPullRequest } from './publication-texts.js';

export interface PullRequestRecord {
  runId: string;
  project: string;
  ticket: string | null;
  repo: string;
  pullRequest: PullRequestRef;
}

/**
 * The `pull_requests` table: one row per pull request (project, repository, number). A re-run
 * that updates an open pull request moves its row to the newer run, so both runs' Run resources
 * change and both are announced.
 */
@Injectable()
export class PullRequestRecordsService {
  constructor(
    private readonly db: DatabaseService,
    private readonly changes: RunChangeNotifier,
  ) {}

  async record(input: PullRequestRecord): Promise<void> {
    const { pullRequest: pr } = input;
    const rows: { previous_run: string | null }[] = await this.db.dataSource.query(
      `WITH previous AS (SELECT run_id FROM pull_requests WHERE project = $2 AND repo = $4 AND number = $6)
       INSERT INTO pull_requests (run_id, project, ticket, repo, url, number, state)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project, repo, number) DO UPDATE
         SET run_id = EXCLUDED.run_id, ticket = EXCLUDED.ticket, url = EXCLUDED.url, state = EXCLUDED.state, updated_at = now()
       RETURNING (SELECT run_id FROM previous) AS previous_run`,
      [input.runId, input.project, input.ticket, input.repo, pr.url, pr.number, pr.state],
    );
    this.changes.changed(input.runId);
    const previous = rows[0]?.previous_run;
    if (previous && previous !== input.runId) this.changes.changed(previous);
  }

  /** The ticket's pull requests recorded as open, by repository name. */
  async openForTicket(project: string, ticket: string): Promise<PublishedPullRequest[]> {
    return this.db.dataSource.query(
      `SELECT repo, url, number FROM pull_requests WHERE project = $1 AND ticket = $2 AND state = 'open' ORDER BY repo, number`, [project, ticket]);
  }

  /** The pull requests a run opened or updated, by repository name. */
  async forRun(runId: string): Promise<PublishedPullRequest[]> {
    return this.db.dataSource.query(
      'SELECT repo, url, number FROM pull_requests WHERE run_id = $1 ORDER BY repo, number', [runId]);
  }
}
