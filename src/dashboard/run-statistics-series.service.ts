import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { RunState } from '../database/entities/run.entity.js';
import { type RunStatistics, percentilesOf } from './run-statistics.service.js';

/** The width of one bucket of `GET /api/runs/statistics/series`. */
export const StatisticsBucket = { Hour: 'hour', Day: 'day' } as const;
export type StatisticsBucket = (typeof StatisticsBucket)[keyof typeof StatisticsBucket];
export const BUCKET_MS: Record<StatisticsBucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** The range a bucket width covers when `since` is not given: the last day by hour, the last 30 days by day. */
export const DEFAULT_RANGE_MS: Record<StatisticsBucket, number> = { hour: 86_400_000, day: 30 * 86_400_000 };
/** More buckets than this is a range no chart draws: refused (400) rather than computed. */
export const MAX_BUCKETS = 1000;

/** The figures of the runs created in one bucket (`start` inclusive, the next bucket's start exclusive). */
export interface RunStatisticsBucket extends Omit<RunStatistics, 'criteria'> {
  start: string;
}

export interface RunStatisticsSeries {
  bucket: StatisticsBucket;
  since: string;
  until: string;
  /** Every bucket of the range, oldest first; a bucket without runs has zeros and null percentiles. */
  series: RunStatisticsBucket[];
}

export interface SeriesRequest {
  bucket: StatisticsBucket;
  since: Date;
  until: Date;
  project?: string;
}

interface BucketRow {
  start: Date;
  total: number | null;
  by_state: Record<string, number> | null;
  by_pipeline: Record<string, number> | null;
  duration: (number | null)[] | null;
  wait: (number | null)[] | null;
  model_calls: string | number | null;
  input_tokens: string | number | null;
  output_tokens: string | number | null;
  cost_usd: string | number | null;
}

/**
 * Run statistics over time: the same figures as `GET /api/runs/statistics`, per UTC hour or day
 * of `createdAt`, computed by the database in one statement. Buckets are aligned to the UTC
 * hour/day, so the first one may start before `since` (it counts only runs from `since` on).
 */
@Injectable()
export class RunStatisticsSeriesService {
  constructor(private readonly db: DatabaseService) {}

  async compute(request: SeriesRequest): Promise<RunStatisticsSeries> {
    const params: unknown[] = [request.bucket, request.since, request.until];
    const project = request.project === undefined ? '' : (params.push(request.project), `AND r.project = $${params.length}`);
    // A fixed-length step ('1 hour', '24 hours'), so the session's time zone cannot stretch a day.
    const step = request.bucket === StatisticsBucket.Hour ? '1 hour' : '24 hours';
    const rows = (await this.db.dataSource.query(
      `WITH f AS (
         SELECT r.*, date_trunc($1, r.created_at, 'UTC') AS b FROM runs r
          WHERE r.created_at >= $2 AND r.created_at < $3 ${project}),
       buckets AS (
         SELECT generate_series(date_trunc($1, $2::timestamptz, 'UTC'), $3::timestamptz - interval '1 microsecond', interval '${step}') AS b),
       agg AS (
         SELECT b, count(*)::int AS total,
           percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))
             FILTER (WHERE finished_at IS NOT NULL AND started_at IS NOT NULL) AS duration,
           percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at))
             FILTER (WHERE started_at IS NOT NULL) AS wait,
           sum(model_calls) AS model_calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd
         FROM f GROUP BY b),
       st AS (SELECT b, json_object_agg(state, n) AS by_state FROM (SELECT b, state, count(*)::int AS n FROM f GROUP BY b, state) x GROUP BY b),
       pl AS (SELECT b, json_object_agg(pipeline, n) AS by_pipeline FROM (SELECT b, pipeline, count(*)::int AS n FROM f GROUP BY b, pipeline) x GROUP BY b)
       SELECT buckets.b AS start, agg.total, st.by_state, pl.by_pipeline, agg.duration, agg.wait,
              agg.model_calls, agg.input_tokens, agg.output_tokens, agg.cost_usd
         FROM buckets LEFT JOIN agg USING (b) LEFT JOIN st USING (b) LEFT JOIN pl USING (b)
        ORDER BY buckets.b`,
      params,
    )) as BucketRow[];
    return {
      bucket: request.bucket,
      since: request.since.toISOString(),
      until: request.until.toISOString(),
      series: rows.map(bucketOf),
    };
  }
}

function bucketOf(row: BucketRow): RunStatisticsBucket {
  const byState = Object.fromEntries(Object.values(RunState).map((s) => [s, 0])) as Record<RunState, number>;
  Object.assign(byState, row.by_state ?? {});
  return {
    start: new Date(row.start).toISOString(),
    total: row.total ?? 0,
    byState,
    byPipeline: row.by_pipeline ?? {},
    durationSeconds: percentilesOf(row.duration),
    queueWaitSeconds: percentilesOf(row.wait),
    usage: {
      modelCalls: Number(row.model_calls ?? 0),
      inputTokens: Number(row.input_tokens ?? 0),
      outputTokens: Number(row.output_tokens ?? 0),
      costUsd: Number(row.cost_usd ?? 0),
    },
  };
}
