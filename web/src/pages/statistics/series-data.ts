import { STATISTICS_RANGES, type StatisticsRange, type StatisticsSearch } from '../../lib/page-search';

/** `GET /api/runs/statistics` and one bucket of `GET /api/runs/statistics/series`. */
export interface Percentiles { p50: number | null; p95: number | null }
export interface StatisticsFigures {
  total: number;
  byState: Record<string, number>;
  byPipeline: Record<string, number>;
  durationSeconds: Percentiles;
  queueWaitSeconds: Percentiles;
  usage: { modelCalls: number; inputTokens: number; outputTokens: number; costUsd: number };
  /** Acceptance criteria: the agent's verdicts and the judgements that overruled them (the totals only, not per bucket). */
  criteria?: { met: number; unmet: number; notApplicable: number; overruled: number };
}
export interface StatisticsBucket extends StatisticsFigures { start: string }
export type BucketWidth = 'hour' | 'day';
export interface StatisticsSeries { bucket: BucketWidth; since: string; until: string; series: StatisticsBucket[] }

/** Hours for a day (24 points), days for a week or a month (168 hourly points of a week read as noise). */
export function bucketOfRange(range: StatisticsRange): BucketWidth {
  return range === '24h' ? 'hour' : 'day';
}

/** The API queries of a page state, measured at `now`: the figures over the range, and its series. */
export function statisticsQueries(search: StatisticsSearch, fallback: StatisticsRange, now: number): { figures: string; series: string } {
  const range = search.range ?? fallback;
  const since = new Date(now - STATISTICS_RANGES[range]).toISOString();
  const figures = new URLSearchParams({ since });
  const series = new URLSearchParams({ bucket: bucketOfRange(range), since, until: new Date(now).toISOString() });
  if (search.project) {
    figures.set('project', search.project);
    series.set('project', search.project);
  }
  return { figures: figures.toString(), series: series.toString() };
}

/** One line of a chart: a label, its colour and the value it takes in a bucket (null: no data, a gap). */
export interface ChartLine {
  label: string;
  color: string;
  value: (bucket: StatisticsBucket) => number | null;
  /** How the text alternative sums it up: a count or a cost adds up, a percentile does not. */
  aggregate: 'sum' | 'max';
}

/** uPlot's aligned data: x in Unix seconds, then one array per line, same length. */
export type ChartData = [number[], ...(number | null)[][]];

export function chartData(series: readonly StatisticsBucket[], lines: readonly ChartLine[]): ChartData {
  const xs = series.map((b) => Math.floor(Date.parse(b.start) / 1000));
  return [xs, ...lines.map((line) => series.map((b) => finiteOrNull(line.value(b))))];
}

function finiteOrNull(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : v;
}

export const STATE_COLORS: Record<string, string> = {
  queued: '#64748b', running: '#2563eb', parked: '#d97706', succeeded: '#16a34a', failed: '#dc2626', cancelled: '#a855f7',
};
const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#dc2626', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#475569'];
const STATES = ['queued', 'running', 'parked', 'succeeded', 'failed', 'cancelled'];

export function stateLines(): ChartLine[] {
  return STATES.map((state) => ({ label: state, color: STATE_COLORS[state]!, value: (b) => b.byState[state] ?? 0, aggregate: 'sum' }));
}

/** Every pipeline that ran in the range, the busiest first (then by name, so the colours stay put). */
export function pipelinesOf(series: readonly StatisticsBucket[]): string[] {
  const totals = new Map<string, number>();
  for (const b of series) for (const [name, n] of Object.entries(b.byPipeline)) totals.set(name, (totals.get(name) ?? 0) + n);
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
}

export function pipelineLines(series: readonly StatisticsBucket[]): ChartLine[] {
  return pipelinesOf(series).map((name, i) => ({ label: name, color: PALETTE[i % PALETTE.length]!, value: (b) => b.byPipeline[name] ?? 0, aggregate: 'sum' }));
}

export function timingLines(): ChartLine[] {
  return [
    { label: 'duration p50', color: '#2563eb', value: (b) => b.durationSeconds.p50, aggregate: 'max' },
    { label: 'duration p95', color: '#7c3aed', value: (b) => b.durationSeconds.p95, aggregate: 'max' },
    { label: 'queue wait p50', color: '#d97706', value: (b) => b.queueWaitSeconds.p50, aggregate: 'max' },
    { label: 'queue wait p95', color: '#db2777', value: (b) => b.queueWaitSeconds.p95, aggregate: 'max' },
  ];
}

export function costLines(): ChartLine[] {
  return [{ label: 'cost (USD)', color: '#16a34a', value: (b) => b.usage.costUsd, aggregate: 'sum' }];
}

export function tokenLines(): ChartLine[] {
  return [
    { label: 'input tokens', color: '#2563eb', value: (b) => b.usage.inputTokens, aggregate: 'sum' },
    { label: 'output tokens', color: '#9333ea', value: (b) => b.usage.outputTokens, aggregate: 'sum' },
  ];
}

/**
 * The chart's figures in one sentence (its text alternative): per line the total over the range
 * (counts, cost) or the highest value of a bucket (percentiles), and where the peak was.
 */
export function chartSummary(lines: readonly ChartLine[], data: ChartData, format: (v: number) => string, when: (unixSeconds: number) => string): string {
  const xs = data[0];
  if (xs.length === 0) return 'no data';
  const parts = lines.map((line, i) => {
    const ys = data[i + 1] ?? [];
    let peak = -Infinity;
    let peakAt = -1;
    let sum = 0;
    ys.forEach((y, j) => {
      if (y === null) return;
      sum += y;
      if (y > peak) { peak = y; peakAt = j; }
    });
    if (peakAt < 0) return `${line.label}: no data`;
    if (line.aggregate === 'max') return `${line.label}: highest ${format(peak)} (${when(xs[peakAt]!)})`;
    return sum === 0 ? `${line.label}: 0` : `${line.label}: ${format(sum)} in all, most ${format(peak)} (${when(xs[peakAt]!)})`;
  });
  return parts.join('; ');
}

/** Seconds as a person reads them: 45 s, 3.5 min, 1.2 h. */
export function formatSeconds(s: number): string {
  if (s < 90) return `${round(s)} s`;
  if (s < 5400) return `${round(s / 60)} min`;
  return `${round(s / 3600)} h`;
}

function round(v: number): string {
  return v >= 10 ? String(Math.round(v)) : String(Math.round(v * 10) / 10);
}
