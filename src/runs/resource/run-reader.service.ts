import { Injectable } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import { DatabaseService } from '../../database/database.service.js';
import type { RunState } from '../../database/entities/run.entity.js';
import type { Platform } from '../../platforms/platform.js';
import type { Run } from './run-resource.js';
import { RUN_COLUMNS, RUN_ORDER, type RunRowSql, runOfRow } from './run-sql.js';
import { ticketUrlOf } from '../../platforms/ticket-urls.js';

/** Filters of `GET /api/runs` (contract "Runs API details"); all optional, combined with AND. */
export interface RunFilter {
  state?: RunState;
  project?: string;
  ticket?: string;
  pipeline?: string;
  platform?: Platform;
  /** On createdAt, inclusive. */
  since?: Date;
  /** On createdAt, exclusive. */
  until?: Date;
}

export interface RunPage {
  items: Run[];
  total: number;
}

/** A WHERE clause (with its parameters, numbered from 1) for a filter. */
export function runFilterSql(filter: RunFilter): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.state !== undefined) add('r.state = ?', filter.state);
  if (filter.project !== undefined) add('r.project = ?', filter.project);
  if (filter.ticket !== undefined) add('r.ticket = ?', filter.ticket);
  if (filter.pipeline !== undefined) add('r.pipeline = ?', filter.pipeline);
  if (filter.platform !== undefined) add('r.platform = ?', filter.platform);
  if (filter.since !== undefined) add('r.created_at >= ?', filter.since);
  if (filter.until !== undefined) add('r.created_at < ?', filter.until);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** Filters whose total the counts kept by triggers answer (migration 0010), whatever the number of runs. */
const COUNTED_FILTERS: ReadonlySet<string> = new Set(['state', 'project']);

function isCounted(filter: RunFilter): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || COUNTED_FILTERS.has(key));
}

/**
 * The SQL of one page of runs and of their total, as `GET /api/runs` runs it (the bench runs it too).
 * The page is chosen first and the per-run aggregates (sandboxes, steps, pull requests) computed
 * for its rows only: with them in the same SELECT as the OFFSET, PostgreSQL computes them for every
 * skipped row too (page 10 then costs ten pages of aggregates).
 */
export function runPageSql(filter: RunFilter, limit: number, offset: number): { page: string; total: string; params: unknown[]; pageParams: unknown[] } {
  const { where, params } = runFilterSql(filter);
  const n = params.length;
  return {
    page: `SELECT ${RUN_COLUMNS} FROM (SELECT * FROM runs r ${where} ${RUN_ORDER} LIMIT $${n + 1} OFFSET $${n + 2}) r ${RUN_ORDER}`,
    // `run_counts` has the runs' state and project columns, so the same WHERE clause applies.
    total: isCounted(filter) ? `SELECT COALESCE(sum(n), 0)::int AS total FROM run_counts r ${where}` : `SELECT count(*)::int AS total FROM runs r ${where}`,
    params,
    pageParams: [...params, limit, offset],
  };
}

/** Reads runs as the contract's Run resource. */
@Injectable()
export class RunReaderService {
  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
  ) {}

  /** The resource of a row, its ticket linked through the configuration as it stands now. */
  private runOf(row: RunRowSql): Run {
    return runOfRow(row, ticketUrlOf(this.config.config.projects[row.project], row.platform, row.ticket));
  }

  async get(runId: string): Promise<Run | null> {
    const rows: RunRowSql[] = await this.db.dataSource.query(`SELECT ${RUN_COLUMNS} FROM runs r WHERE r.id = $1`, [runId]);
    return rows[0] ? this.runOf(rows[0]) : null;
  }

  /**
   * The Run with the `xmax` of the snapshot it was read in (one statement, so one snapshot): a
   * later read has an xmax at least as large, which orders reads made on different replicas.
   */
  async getVersioned(runId: string): Promise<{ run: Run; snapshotXmax: string } | null> {
    const rows: (RunRowSql & { snapshot_xmax: string })[] = await this.db.dataSource.query(
      `SELECT ${RUN_COLUMNS}, pg_snapshot_xmax(pg_current_snapshot())::text AS snapshot_xmax FROM runs r WHERE r.id = $1`, [runId]);
    return rows[0] ? { run: this.runOf(rows[0]), snapshotXmax: rows[0].snapshot_xmax } : null;
  }

  async list(filter: RunFilter, limit: number, offset: number): Promise<RunPage> {
    const sql = runPageSql(filter, limit, offset);
    const [rows, totals] = await Promise.all([
      this.db.dataSource.query(sql.page, sql.pageParams) as Promise<RunRowSql[]>,
      this.db.dataSource.query(sql.total, sql.params) as Promise<{ total: number }[]>,
    ]);
    return { items: rows.map((row) => this.runOf(row)), total: totals[0]?.total ?? 0 };
  }
}
