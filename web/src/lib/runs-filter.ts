import { RUN_STATES, type Run, type RunState } from '../api/types';

/** The runs page's URL state: every filter is a query parameter, so Back and shared links work. */
export interface RunsFilter {
  state?: RunState;
  project?: string;
  pipeline?: string;
  platform?: string;
  ticket?: string;
  /** A time range: the last `range` (1h, 24h, 7d, 30d) on createdAt. */
  range?: RunsRange;
}

export const RUNS_RANGES = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RunsRange = keyof typeof RUNS_RANGES;
const TEXT_KEYS = ['project', 'pipeline', 'platform', 'ticket'] as const;

/** Reads the query string leniently: an unknown state or range is dropped, never an error page. */
export function parseRunsFilter(search: Record<string, unknown>): RunsFilter {
  const filter: RunsFilter = {};
  const state = search['state'];
  if (typeof state === 'string' && (RUN_STATES as string[]).includes(state)) filter.state = state as RunState;
  const range = search['range'];
  if (typeof range === 'string' && range in RUNS_RANGES) filter.range = range as RunsRange;
  for (const key of TEXT_KEYS) {
    const value = search[key];
    if (typeof value === 'string' && value.trim() !== '') filter[key] = value.trim().slice(0, 200);
    else if (typeof value === 'number') filter[key] = String(value);
  }
  return filter;
}

/** The API query of a filter (`since` from the range, measured at `now`). */
export function runsQuery(filter: RunsFilter, now: number, limit = 200): string {
  const params = new URLSearchParams();
  for (const key of ['state', ...TEXT_KEYS] as const) {
    const value = filter[key];
    if (value) params.set(key, value);
  }
  if (filter.range) params.set('since', new Date(now - RUNS_RANGES[filter.range]).toISOString());
  params.set('limit', String(limit));
  return params.toString();
}

/** Whether a run (e.g. one the hub just announced) belongs in the list this filter shows. */
export function matchesFilter(run: Run, filter: RunsFilter, now: number): boolean {
  if (filter.state && run.state !== filter.state) return false;
  if (filter.project && run.project !== filter.project) return false;
  if (filter.pipeline && run.pipeline !== filter.pipeline) return false;
  if (filter.platform && run.platform !== filter.platform) return false;
  if (filter.ticket && run.ticket !== filter.ticket) return false;
  if (filter.range && Date.parse(run.createdAt) < now - RUNS_RANGES[filter.range]) return false;
  return true;
}
