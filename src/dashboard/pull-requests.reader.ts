import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { PullRequestState } from '../runs/resource/run-resource.js';

/** An item of `GET /api/pull-requests` (contract "Repositories, branches and pull requests"). */
export interface PullRequestView {
  runId: string | null;
  project: string;
  ticket: string | null;
  repo: string;
  url: string;
  number: number;
  state: PullRequestState;
  openedAt: string;
}

/** `GET /api/pull-requests`: a page, newest first, and how many match in all. */
export interface PullRequestPage {
  items: PullRequestView[];
  total: number;
}

export interface PullRequestFilter {
  project?: string;
  state?: PullRequestState;
}

/** Pull requests the service opened or updated, newest first. */
@Injectable()
export class PullRequestsReader {
  constructor(private readonly db: DatabaseService) {}

  async list(filter: PullRequestFilter, limit: number, offset: number): Promise<PullRequestPage> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (filter.project !== undefined) clauses.push(`project = $${params.push(filter.project)}`);
    if (filter.state !== undefined) clauses.push(`state = $${params.push(filter.state)}`);
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    const [rows, totals] = await Promise.all([
      this.db.dataSource.query(
        `SELECT run_id, project, ticket, repo, url, number, state, opened_at FROM pull_requests ${where}
         ORDER BY opened_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, limit, offset]) as Promise<
        { run_id: string | null; project: string; ticket: string | null; repo: string; url: string; number: number; state: PullRequestState; opened_at: Date }[]>,
      this.db.dataSource.query(`SELECT count(*)::int AS total FROM pull_requests ${where}`, params) as Promise<{ total: number }[]>,
    ]);
    return {
      items: rows.map((r) => ({
        runId: r.run_id, project: r.project, ticket: r.ticket, repo: r.repo, url: r.url, number: r.number, state: r.state,
        openedAt: new Date(r.opened_at).toISOString(),
      })),
      total: totals[0]?.total ?? 0,
    };
  }
}
