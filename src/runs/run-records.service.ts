import type { AgentUsage } from '../agent/agent-types.js';
import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { updatedRows } from '../database/updated-rows.js';
import type { SandboxState } from '../database/entities/run-sandbox.entity.js';
import { ACTIVE_RUN_STATES, LIVE_RUN_STATES, RunState } from '../database/entities/run.entity.js';
import type { Platform } from '../platforms/platform.js';
import type { StepState } from '../pipelines/pipeline.js';
import { RunChangeNotifier } from './changes/run-change-notifier.js';
import type { PipelineRequest, PullRequestTarget } from './pipeline-request.js';

/** The columns of a run the engine works with. */
export interface RunRow {
  id: string;
  platform: Platform;
  project: string;
  ticket: string | null;
  pipeline: string;
  state: RunState;
  owner: string | null;
  admitted: boolean;
  /** When the run was claimed (the database's clock). */
  createdAt: Date;
  error: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Run records in the database beyond what the ticket lifecycle writes: owners and heartbeats,
 * the state of ticket-less runs (which have no ticket row to transition), and sandboxes. Writes
 * that change what the Run resource shows tell the hub (`run.changed`); owners and heartbeats do not.
 */
@Injectable()
export class RunRecordsService {
  constructor(
    private readonly db: DatabaseService,
    private readonly changes: RunChangeNotifier,
  ) {}

  async find(runId: string): Promise<RunRow | null> {
    const rows: (Omit<RunRow, 'admitted'> & { admitted_at: Date | null })[] = await this.db.dataSource.query(
      'SELECT id, platform, project, ticket, pipeline, state, owner, admitted_at, error, created_at AS "createdAt" FROM runs WHERE id = $1', [runId]);
    const row = rows[0];
    return row ? { ...row, admitted: row.admitted_at !== null } : null;
  }

  /** The live run of a ticket, if any (at most one: the live-run unique index). */
  async liveRunOf(platform: Platform, project: string, ticket: string): Promise<Pick<RunRow, 'id' | 'state'> | null> {
    const rows: Pick<RunRow, 'id' | 'state'>[] = await this.db.dataSource.query(
      'SELECT id, state FROM runs WHERE platform = $1 AND project = $2 AND ticket = $3 AND state = ANY($4::text[])',
      [platform, project, ticket, LIVE_RUN_STATES]);
    return rows[0] ?? null;
  }

  /** Records which consumer took the run, with a first heartbeat. */
  async takeOwnership(runId: string, owner: string): Promise<void> {
    await this.db.dataSource.query('UPDATE runs SET owner = $2, heartbeat_at = now() WHERE id = $1', [runId, owner]);
  }

  /** Clears the owner of a run that is still queued (its request went back to the queue). */
  async releaseOwnership(runId: string, owner: string): Promise<void> {
    await this.db.dataSource.query(`UPDATE runs SET owner = NULL WHERE id = $1 AND owner = $2 AND state = 'queued'`, [runId, owner]);
  }

  /** The database copy of the heartbeat (it survives a store flush). */
  async touch(runIds: string[], owner: string): Promise<void> {
    if (runIds.length === 0) return;
    await this.db.dataSource.query('UPDATE runs SET heartbeat_at = now() WHERE id = ANY($1::uuid[]) AND owner = $2', [runIds, owner]);
  }

  /** queued → running for a ticket-less run; false when it is not queued (someone else has it). */
  async startTicketless(runId: string): Promise<boolean> {
    const result: unknown = await this.db.dataSource.query(
      `UPDATE runs SET state = 'running', started_at = now() WHERE id = $1 AND ticket IS NULL AND state = 'queued' RETURNING id`, [runId]);
    return this.noted(runId, updatedRows(result).length > 0);
  }

  /** Ends a run directly (ticket-less runs, or a run whose ticket no longer points at it). */
  async finish(runId: string, state: RunState, error: string | null): Promise<boolean> {
    const result: unknown = await this.db.dataSource.query(
      `UPDATE runs SET state = $2, finished_at = now(), error = COALESCE($3, error)
       WHERE id = $1 AND state = ANY($4::text[]) RETURNING id`, [runId, state, error, LIVE_RUN_STATES]);
    return this.noted(runId, updatedRows(result).length > 0);
  }

  async noteSandbox(runId: string, repo: string, pathPrefix: string, state: SandboxState): Promise<void> {
    await this.db.dataSource.query(
      `INSERT INTO run_sandboxes (run_id, repo, path_prefix, state) VALUES ($1, $2, $3, $4)
       ON CONFLICT (run_id, repo) DO UPDATE SET state = $4`, [runId, repo, pathPrefix, state]);
    this.changes.changed(runId);
  }

  /** A step of the run started (inserted) or ended (its state and end time set). */
  async noteStep(runId: string, position: number, name: string, state: StepState): Promise<void> {
    await this.db.dataSource.query(
      `INSERT INTO run_steps (run_id, position, name, state) VALUES ($1, $2, $3, $4)
       ON CONFLICT (run_id, position) DO UPDATE SET state = $4, finished_at = CASE WHEN $4 = 'running' THEN NULL ELSE now() END`,
      [runId, position, name, state]);
    this.changes.changed(runId);
  }

  /**
   * The run's model usage so far (totals, not increments: a write that is lost or repeated
   * leaves the next one right). Never lowers what is recorded, so a late write cannot undo a newer one.
   */
  async noteUsage(runId: string, usage: AgentUsage): Promise<void> {
    await this.db.dataSource.query(
      `UPDATE runs SET model_calls = $2, input_tokens = $3, output_tokens = $4, cost_usd = $5
       WHERE id = $1 AND model_calls <= $2`,
      [runId, usage.modelCalls, usage.inputTokens, usage.outputTokens, usage.costUsd.toFixed(6)]);
    this.changes.changed(runId);
  }

  /**
   * For the sandbox sweep: false only for a run this installation recorded and that has ended or
   * is parked (a parked run executes nothing, for days: a sandbox of it was left behind). A run it
   * does not know (a `pipeline-service run` from the command line, another installation sharing
   * the engine) is not its to remove.
   */
  async mayHoldSandboxes(runId: string): Promise<boolean> {
    if (!UUID.test(runId)) return true;
    const rows: unknown = await this.db.dataSource.query('SELECT state FROM runs WHERE id = $1', [runId]);
    const row = Array.isArray(rows) ? (rows[0] as { state: RunState } | undefined) : undefined;
    return row === undefined || ACTIVE_RUN_STATES.includes(row.state);
  }

  /** Tells the hub when `changed`; passes it on. */
  private noted(runId: string, changed: boolean): boolean {
    if (changed) this.changes.changed(runId);
    return changed;
  }

  /** Running runs whose database heartbeat is older than `ttlSeconds` (candidates for stale detection). */
  async silentRunning(ttlSeconds: number): Promise<Pick<RunRow, 'id' | 'ticket' | 'owner'>[]> {
    return this.db.dataSource.query(
      `SELECT id, ticket, owner FROM runs WHERE state = 'running'
       AND COALESCE(heartbeat_at, started_at, created_at) < now() - make_interval(secs => $1) ORDER BY queue_seq`, [ttlSeconds]);
  }

  /** Queued runs (their tickets are Enqueued) older than `graceSeconds`, with whether their heartbeat is fresh. */
  async queued(graceSeconds: number, ttlSeconds: number): Promise<(PipelineRequest & { fresh: boolean })[]> {
    const rows: { id: string; platform: Platform; project: string; ticket: string | null; pipeline: string; target: PullRequestTarget | null; fresh: boolean }[] =
      await this.db.dataSource.query(
        `SELECT id, platform, project, ticket, pipeline, target,
           COALESCE(heartbeat_at > now() - make_interval(secs => $2), false) AS fresh
         FROM runs WHERE state = 'queued' AND created_at < now() - make_interval(secs => $1) ORDER BY queue_seq`,
        [graceSeconds, ttlSeconds]);
    return rows.map((r) => ({ runId: r.id, platform: r.platform, project: r.project, ticket: r.ticket, pipeline: r.pipeline, target: r.target, fresh: r.fresh }));
  }
}
