import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { RunState } from '../database/entities/run.entity.js';
import { type RunFilter, runFilterSql } from '../runs/resource/run-reader.service.js';
import type { RunUsage } from '../runs/resource/run-resource.js';

export interface Percentiles {
  p50: number | null;
  p95: number | null;
}

/** `GET /api/runs/statistics` (contract "Runs API details"). */
export interface RunStatistics {
  total: number;
  byState: Record<RunState, number>;
  byPipeline: Record<string, number>;
  /** Start → end of finished runs that started. */
  durationSeconds: Percentiles;
  /** Claim (createdAt) → start of runs that started. */
  queueWaitSeconds: Percentiles;
  usage: RunUsage;
  /**
   * The acceptance criteria of those runs: the agent's verdicts (`met`, `unmet`,
   * `notApplicable`; unreported ones count in none) and `overruled`, judgements that differ from
   * the agent's verdict (a judgement of an unreported criterion counts as overruling).
   */
  criteria: CriteriaCounts;
}

export interface CriteriaCounts {
  met: number;
  unmet: number;
  notApplicable: number;
  overruled: number;
}

interface StatisticsRow {
  total: number;
  by_state: Record<string, number> | null;
  by_pipeline: Record<string, number> | null;
  duration: (number | null)[] | null;
  wait: (number | null)[] | null;
  model_calls: string | number;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_usd: string | number;
  criteria: { met: number; unmet: number; not_applicable: number; overruled: number } | null;
}

/** Figures over the runs a filter selects, computed by the database in one statement. */
@Injectable()
export class RunStatisticsService {
  constructor(private readonly db: DatabaseService) {}

  async compute(filter: Pick<RunFilter, 'since' | 'project'>): Promise<RunStatistics> {
    const { where, params } = runFilterSql(filter);
    const [row] = (await this.db.dataSource.query(
      `WITH f AS (SELECT r.* FROM runs r ${where})
       SELECT
         (SELECT count(*)::int FROM f) AS total,
         (SELECT json_object_agg(state, n) FROM (SELECT state, count(*)::int AS n FROM f GROUP BY state) s) AS by_state,
         (SELECT json_object_agg(pipeline, n) FROM (SELECT pipeline, count(*)::int AS n FROM f GROUP BY pipeline) p) AS by_pipeline,
         (SELECT percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))
            FROM f WHERE finished_at IS NOT NULL AND started_at IS NOT NULL) AS duration,
         (SELECT percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at))
            FROM f WHERE started_at IS NOT NULL) AS wait,
         (SELECT COALESCE(sum(model_calls), 0) FROM f) AS model_calls,
         (SELECT COALESCE(sum(input_tokens), 0) FROM f) AS input_tokens,
         (SELECT COALESCE(sum(output_tokens), 0) FROM f) AS output_tokens,
         (SELECT COALESCE(sum(cost_usd), 0) FROM f) AS cost_usd,
         (SELECT json_build_object(
            'met', count(*) FILTER (WHERE c.verdict = 'met'),
            'unmet', count(*) FILTER (WHERE c.verdict = 'unmet'),
            'not_applicable', count(*) FILTER (WHERE c.verdict = 'not_applicable'),
            'overruled', count(*) FILTER (WHERE c.judged_at IS NOT NULL AND c.judgement_verdict IS DISTINCT FROM c.verdict))
            FROM run_criteria c JOIN f ON f.id = c.run_id) AS criteria`,
      params,
    )) as StatisticsRow[];
    const byState = Object.fromEntries(Object.values(RunState).map((s) => [s, 0])) as Record<RunState, number>;
    Object.assign(byState, row?.by_state ?? {});
    return {
      total: row?.total ?? 0,
      byState,
      byPipeline: row?.by_pipeline ?? {},
      durationSeconds: percentilesOf(row?.duration),
      queueWaitSeconds: percentilesOf(row?.wait),
      usage: {
        modelCalls: Number(row?.model_calls ?? 0),
        inputTokens: Number(row?.input_tokens ?? 0),
        outputTokens: Number(row?.output_tokens ?? 0),
        costUsd: Number(row?.cost_usd ?? 0),
      },
      criteria: {
        met: Number(row?.criteria?.met ?? 0),
        unmet: Number(row?.criteria?.unmet ?? 0),
        notApplicable: Number(row?.criteria?.not_applicable ?? 0),
        overruled: Number(row?.criteria?.overruled ?? 0),
      },
    };
  }
}

/** Seconds to the millisecond; null where no run qualified. */
export function percentilesOf(values: (number | null)[] | null | undefined): Percentiles {
  const round = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 1000);
  return { p50: round(values?.[0]), p95: round(values?.[1]) };
}
