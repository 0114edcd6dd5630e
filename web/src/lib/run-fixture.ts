import type { Run } from '../api/types';

/** A running run of project `shop` for unit tests; `over` replaces any field. */
export function runFixture(id: string, over: Partial<Run> = {}): Run {
  return {
    id, project: 'shop', ticket: id, ticketUrl: null, platform: 'github', pipeline: 'code', state: 'running',
    createdAt: '2026-11-28T11:30:00Z', startedAt: '2026-11-28T11:30:01Z', finishedAt: null, error: null,
    sandboxes: [], steps: [], usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 }, pullRequests: [], target: null, criteria: [],
    ...over,
  };
}
