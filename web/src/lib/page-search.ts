/**
 * URL state of the pull-requests and statistics pages (read leniently, like the runs filters: an
 * unknown value is dropped, never an error page). Tiny on purpose: the router imports it.
 */
export const PR_STATES = ['open', 'merged', 'closed'] as const;
export type PrState = (typeof PR_STATES)[number];
export const PR_PAGE_SIZE = 50;

export interface PullRequestsSearch {
  project?: string;
  state?: PrState;
  /** 1-based. */
  page?: number;
}

export function parsePullRequestsSearch(search: Record<string, unknown>): PullRequestsSearch {
  const out: PullRequestsSearch = {};
  const project = textOf(search['project']);
  if (project) out.project = project;
  const state = search['state'];
  if (typeof state === 'string' && (PR_STATES as readonly string[]).includes(state)) out.state = state as PrState;
  const page = Number(search['page']);
  if (Number.isInteger(page) && page > 1 && page <= 100_000) out.page = page;
  return out;
}

/** The API query of the pull-requests page. */
export function pullRequestsQuery(search: PullRequestsSearch): string {
  const params = new URLSearchParams();
  if (search.project) params.set('project', search.project);
  if (search.state) params.set('state', search.state);
  params.set('limit', String(PR_PAGE_SIZE));
  params.set('offset', String(((search.page ?? 1) - 1) * PR_PAGE_SIZE));
  return params.toString();
}

export const STATISTICS_RANGES = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type StatisticsRange = keyof typeof STATISTICS_RANGES;
export const DEFAULT_STATISTICS_RANGE: StatisticsRange = '7d';

export interface StatisticsSearch {
  range?: StatisticsRange;
  project?: string;
}

export function parseStatisticsSearch(search: Record<string, unknown>): StatisticsSearch {
  const out: StatisticsSearch = {};
  const range = search['range'];
  if (typeof range === 'string' && range in STATISTICS_RANGES) out.range = range as StatisticsRange;
  const project = textOf(search['project']);
  if (project) out.project = project;
  return out;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return value.trim().slice(0, 200);
}
