import { Injectable } from '@nestjs/common';
import type { Criterion, CriterionVerdict } from '../../criteria/criteria.js';
import { DatabaseService } from '../../database/database.service.js';
import { updatedRows } from '../../database/updated-rows.js';
import { RunChangeNotifier } from '../changes/run-change-notifier.js';

export type JudgeOutcome = { outcome: 'judged' } | { outcome: 'no-run' } | { outcome: 'no-criterion' };

/**
 * A run's acceptance criteria in the database (`run_criteria`): captured once when the run reads
 * its ticket, each verdict as the agent reports it, and people's judgements. Every write tells
 * the hub (`run.changed`), since the Run resource shows the criteria.
 */
@Injectable()
export class RunCriteriaService {
  constructor(
    private readonly db: DatabaseService,
    private readonly changes: RunChangeNotifier,
  ) {}

  /** The ticket's criteria as this run read them (once per run: a second capture keeps the first). */
  async capture(runId: string, criteria: readonly Criterion[]): Promise<void> {
    if (criteria.length === 0) return;
    await this.db.dataSource.query(
      `INSERT INTO run_criteria (run_id, position, id, text)
       SELECT $1, p, i, t FROM unnest($2::int[], $3::text[], $4::text[]) AS c(p, i, t)
       ON CONFLICT (run_id, id) DO NOTHING`,
      [runId, criteria.map((_, i) => i + 1), criteria.map((c) => c.id), criteria.map((c) => c.text)]);
    this.changes.changed(runId);
  }

  /** The agent's verdict on one criterion (the last report wins). */
  async report(runId: string, id: string, verdict: CriterionVerdict, evidence: string): Promise<void> {
    await this.db.dataSource.query(
      'UPDATE run_criteria SET verdict = $3, evidence = $4, reported_at = now() WHERE run_id = $1 AND id = $2',
      [runId, id, verdict, evidence]);
    this.changes.changed(runId);
  }

  /** A person's judgement of one criterion; the run itself is not touched. */
  async judge(runId: string, id: string, verdict: CriterionVerdict, reason: string, by: string): Promise<JudgeOutcome> {
    const result: unknown = await this.db.dataSource.query(
      `UPDATE run_criteria SET judgement_verdict = $3, judgement_reason = $4, judged_by = $5, judged_at = now()
       WHERE run_id = $1 AND id = $2 RETURNING id`, [runId, id, verdict, reason, by]);
    if (updatedRows(result).length > 0) {
      this.changes.changed(runId);
      return { outcome: 'judged' };
    }
    const runs: unknown[] = await this.db.dataSource.query('SELECT 1 FROM runs WHERE id = $1', [runId]);
    return runs.length > 0 ? { outcome: 'no-criterion' } : { outcome: 'no-run' };
  }
}
