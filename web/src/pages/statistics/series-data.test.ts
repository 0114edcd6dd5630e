import { describe, expect, it } from 'vitest';
import { type StatisticsBucket, chartData, chartSummary, pipelineLines, pipelinesOf, stateLines, statisticsQueries, timingLines } from './series-data';

const zero = { queued: 0, running: 0, parked: 0, succeeded: 0, failed: 0, cancelled: 0 };
function bucket(start: string, over: Partial<StatisticsBucket> = {}): StatisticsBucket {
  return {
    start, total: 0, byState: { ...zero }, byPipeline: {}, durationSeconds: { p50: null, p95: null }, queueWaitSeconds: { p50: null, p95: null },
    usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 }, ...over,
  };
}
const series = [
  bucket('2026-03-01T00:00:00.000Z', { total: 3, byState: { ...zero, succeeded: 2, failed: 1 }, byPipeline: { lint: 1, code: 2 }, durationSeconds: { p50: 15, p95: 19.5 } }),
  bucket('2026-03-01T01:00:00.000Z'),
  bucket('2026-03-01T02:00:00.000Z', { total: 2, byState: { ...zero, failed: 2 }, byPipeline: { lint: 2, 'security-scan': 0 }, durationSeconds: { p50: 40, p95: 60 } }),
];

describe('series → uPlot data', () => {
  it('puts the x values in Unix seconds and one aligned array per line', () => {
    const data = chartData(series, stateLines());
    expect(data[0]).toEqual([1772323200, 1772326800, 1772330400]);
    expect(data).toHaveLength(1 + 6);
    expect(data[4]).toEqual([2, 0, 0]); // succeeded
    expect(data[5]).toEqual([1, 0, 2]); // failed
    for (const ys of data.slice(1)) expect(ys).toHaveLength(3);
  });

  it('leaves a gap (null) where a bucket has no percentile, never a zero', () => {
    const data = chartData(series, timingLines());
    expect(data[1]).toEqual([15, null, 40]);
    expect(data[2]).toEqual([19.5, null, 60]);
    expect(data[3]).toEqual([null, null, null]);
  });

  it('names every pipeline of the range, busiest first, and counts 0 where one did not run', () => {
    expect(pipelinesOf(series)).toEqual(['lint', 'code', 'security-scan']);
    const data = chartData(series, pipelineLines(series));
    expect(data.slice(1)).toEqual([[1, 0, 2], [2, 0, 0], [0, 0, 0]]);
    expect(pipelineLines([])).toEqual([]);
    expect(chartData([], stateLines())[0]).toEqual([]);
  });

  it('sums counts and takes the highest percentile in the text alternative', () => {
    const when = (s: number) => new Date(s * 1000).toISOString().slice(11, 16);
    const states = stateLines().filter((l) => l.label === 'failed' || l.label === 'parked');
    expect(chartSummary(states, chartData(series, states), String, when)).toBe('parked: 0; failed: 3 in all, most 2 (02:00)');
    const timing = timingLines().slice(0, 1);
    expect(chartSummary(timing, chartData(series, timing), (v) => `${v} s`, when)).toBe('duration p50: highest 40 s (02:00)');
    const waits = timingLines().slice(2, 3);
    expect(chartSummary(waits, chartData(series, waits), String, when)).toBe('queue wait p50: no data');
    expect(chartSummary(waits, chartData([], waits), String, when)).toBe('no data');
  });
});

describe('statisticsQueries', () => {
  const now = Date.parse('2026-03-08T12:00:00.000Z');
  it('asks hours for a day and days for a week or a month, over the same window as the figures', () => {
    expect(statisticsQueries({}, '7d', now)).toEqual({
      figures: 'since=2026-03-01T12%3A00%3A00.000Z',
      series: 'bucket=day&since=2026-03-01T12%3A00%3A00.000Z&until=2026-03-08T12%3A00%3A00.000Z',
    });
    expect(statisticsQueries({ range: '30d', project: 'shop' }, '7d', now).series)
      .toBe('bucket=day&since=2026-02-06T12%3A00%3A00.000Z&until=2026-03-08T12%3A00%3A00.000Z&project=shop');
    expect(statisticsQueries({ range: '24h', project: 'shop' }, '7d', now)).toEqual({
      figures: 'since=2026-03-07T12%3A00%3A00.000Z&project=shop',
      series: 'bucket=hour&since=2026-03-07T12%3A00%3A00.000Z&until=2026-03-08T12%3A00%3A00.000Z&project=shop',
    });
  });
});
