import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useMemo } from 'react';
import { useServices } from '../../app/context';
import { statisticsRoute } from '../../app/router';
import { EmptyState, PageTitle, PanelError, formatCost } from '../../components/ui';
import { DEFAULT_STATISTICS_RANGE, STATISTICS_RANGES, type StatisticsRange, type StatisticsSearch } from '../../lib/page-search';
import { SeriesChart } from './series-chart';
import {
  type StatisticsFigures, type StatisticsSeries, bucketOfRange, costLines, formatSeconds, pipelineLines, stateLines, statisticsQueries, timingLines, tokenLines,
} from './series-data';

const FIELD = 'rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900';
const RANGE_NAMES: Record<StatisticsRange, string> = { '24h': 'Last 24 hours', '7d': 'Last 7 days', '30d': 'Last 30 days' };
const count = (v: number) => (Number.isInteger(v) ? v.toLocaleString() : v.toFixed(1));
const tokens = (v: number) => (v >= 10_000 ? `${Math.round(v / 1000).toLocaleString()}k` : Math.round(v).toLocaleString());
const usd = (v: number) => formatCost(v);
const seconds = (v: number) => formatSeconds(v);
const usdAxis = (v: number) => `$${v < 10 ? v.toFixed(2) : Math.round(v).toLocaleString()}`;

export function StatisticsPage() {
  const search = statisticsRoute.useSearch();
  const navigate = useNavigate({ from: '/statistics' });
  const { api } = useServices();
  const range = search.range ?? DEFAULT_STATISTICS_RANGE;
  const set = (patch: Partial<StatisticsSearch>) =>
    void navigate({ search: (prev: StatisticsSearch) => Object.fromEntries(Object.entries({ ...prev, ...patch }).filter(([, v]) => v !== undefined && v !== '')) });
  // Measured when the query runs (not at render), so a refetch moves the window with the clock.
  const figures = useQuery({
    queryKey: ['statistics', 'figures', range, search.project ?? null],
    queryFn: ({ signal }) => api.get<StatisticsFigures>(`/api/runs/statistics?${statisticsQueries(search, DEFAULT_STATISTICS_RANGE, Date.now()).figures}`, { signal }),
    refetchInterval: 60_000,
  });
  const series = useQuery({
    queryKey: ['statistics', 'series', range, search.project ?? null],
    queryFn: ({ signal }) => api.get<StatisticsSeries>(`/api/runs/statistics/series?${statisticsQueries(search, DEFAULT_STATISTICS_RANGE, Date.now()).series}`, { signal }),
    refetchInterval: 60_000,
  });
  const when = useMemo(() => {
    const hourly = bucketOfRange(range) === 'hour';
    const format = new Intl.DateTimeFormat(undefined, hourly ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } : { month: 'short', day: 'numeric' });
    return (unixSeconds: number) => format.format(new Date(unixSeconds * 1000));
  }, [range]);
  const buckets = series.data?.series;
  const byPipeline = useMemo(() => (buckets ? pipelineLines(buckets) : []), [buckets]);
  const byState = useMemo(() => stateLines(), []);
  const timing = useMemo(() => timingLines(), []);
  const cost = useMemo(() => costLines(), []);
  const tokenUse = useMemo(() => tokenLines(), []);

  return (
    <section>
      <PageTitle>Statistics</PageTitle>
      <form role="search" aria-label="Choose the runs" className="mb-4 flex flex-wrap items-end gap-4" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend className="text-xs">Range</legend>
          <div className="flex gap-1">
            {(Object.keys(STATISTICS_RANGES) as StatisticsRange[]).map((r) => (
              <Link
                key={r}
                to="/statistics"
                search={{ ...search, range: r === DEFAULT_STATISTICS_RANGE ? undefined : r }}
                aria-current={r === range ? 'true' : undefined}
                aria-label={RANGE_NAMES[r]}
                className={`rounded border px-2 py-1 text-sm ${r === range ? 'border-blue-700 bg-blue-700 text-white dark:border-blue-400 dark:bg-blue-400 dark:text-slate-950' : 'border-slate-300 hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800'}`}
              >
                {r}
              </Link>
            ))}
          </div>
        </fieldset>
        <label className="flex flex-col text-xs">
          Project
          <input
            className={FIELD}
            data-search
            placeholder="every project"
            defaultValue={search.project ?? ''}
            key={search.project ?? ''}
            onBlur={(e) => set({ project: e.target.value.trim() || undefined })}
            onKeyDown={(e) => { if (e.key === 'Enter') set({ project: e.currentTarget.value.trim() || undefined }); }}
          />
        </label>
      </form>

      <h2 className="mb-2 text-lg font-semibold">{RANGE_NAMES[range]}{search.project ? ` · ${search.project}` : ''}</h2>
      {figures.isPending ? <p role="status">Loading the figures…</p> : null}
      {figures.isError ? <PanelError what="the statistics" error={figures.error} retry={() => void figures.refetch()} /> : null}
      {figures.data ? <FigureTiles figures={figures.data} /> : null}
      {figures.data && figures.data.total === 0 ? (
        <EmptyState title={`No run was created in this range${search.project ? ` for project ${search.project}` : ''}.`}>
          <p>A run starts when a ticket of a configured project gets one of its trigger statuses or labels, when a pull-request command asks for one, or from <code>npx pipeline-service run</code>. Try a longer range{search.project ? <>, or <Link to="/statistics" search={{ range: search.range }} className="underline">every project</Link></> : null}.</p>
        </EmptyState>
      ) : null}

      <h2 className="mt-6 mb-2 text-lg font-semibold">Over time <span className="text-sm font-normal text-slate-600 dark:text-slate-400">(per {bucketOfRange(range)}, UTC)</span></h2>
      {series.isPending ? <p role="status">Loading the charts…</p> : null}
      {series.isError ? <PanelError what="the statistics over time" error={series.error} retry={() => void series.refetch()} /> : null}
      {buckets ? (
        <div className="grid gap-4 lg:grid-cols-2">
          <SeriesChart title="Runs by state" series={buckets} lines={byState} format={count} when={when} integers />
          <SeriesChart title="Runs by pipeline" series={buckets} lines={byPipeline} format={count} when={when} integers />
          <SeriesChart title="Duration and queue wait (p50, p95)" series={buckets} lines={timing} format={seconds} when={when} />
          <SeriesChart title="Cost" series={buckets} lines={cost} format={usd} axisFormat={usdAxis} when={when} />
          <SeriesChart title="Tokens" series={buckets} lines={tokenUse} format={tokens} when={when} integers />
        </div>
      ) : null}
    </section>
  );
}

function FigureTiles({ figures }: { figures: StatisticsFigures }) {
  const p = (v: number | null) => (v === null ? '—' : formatSeconds(v));
  const tiles: [string, string, string?][] = [
    ['Runs', figures.total.toLocaleString()],
    ['Succeeded', (figures.byState['succeeded'] ?? 0).toLocaleString()],
    ['Failed', (figures.byState['failed'] ?? 0).toLocaleString()],
    ['Live now', ((figures.byState['queued'] ?? 0) + (figures.byState['running'] ?? 0) + (figures.byState['parked'] ?? 0)).toLocaleString(), 'queued, running or parked'],
    ['Duration p50 / p95', `${p(figures.durationSeconds.p50)} / ${p(figures.durationSeconds.p95)}`, 'start to end of finished runs'],
    ['Queue wait p50 / p95', `${p(figures.queueWaitSeconds.p50)} / ${p(figures.queueWaitSeconds.p95)}`, 'claim to start'],
    ['Model calls', figures.usage.modelCalls.toLocaleString()],
    ['Tokens in / out', `${tokens(figures.usage.inputTokens)} / ${tokens(figures.usage.outputTokens)}`],
    ['Cost', formatCost(figures.usage.costUsd)],
  ];
  const c = figures.criteria;
  if (c && c.met + c.unmet + c.notApplicable + c.overruled > 0) {
    tiles.push(['Criteria met / unmet / n.a.', `${c.met.toLocaleString()} / ${c.unmet.toLocaleString()} / ${c.notApplicable.toLocaleString()}`, 'acceptance criteria as the agent reported them']);
    tiles.push(['Criteria overruled', c.overruled.toLocaleString(), 'judgements that differ from the agent\'s verdict']);
  }
  return (
    <dl className="mb-4 grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-5">
      {tiles.map(([label, value, hint]) => (
        <div key={label} className="rounded border border-slate-200 p-3 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400" title={hint}>{label}</dt>
          <dd className="text-lg font-semibold tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
