import type { SandboxState } from '../../database/entities/run-sandbox.entity.js';
import type { RunState } from '../../database/entities/run.entity.js';
import type { Platform } from '../../platforms/platform.js';
import type { StepState } from '../../pipelines/pipeline.js';
import type { CriterionJudgementView, PullRequestState, Run, RunCriterionView } from './run-resource.js';

/**
 * The columns of a Run, its sandboxes, steps and pull requests aggregated in the same row, so a
 * page of runs is one statement and one round trip. `r` is the `runs` alias of the FROM clause.
 */
export const RUN_COLUMNS = `
  r.id, r.project, r.ticket, r.platform, r.pipeline, r.state, r.created_at, r.started_at, r.finished_at, r.error,
  r.model_calls, r.input_tokens, r.output_tokens, r.cost_usd, r.target,
  (SELECT COALESCE(json_agg(json_build_object('repo', s.repo, 'pathPrefix', s.path_prefix, 'state', s.state) ORDER BY s.created_at, s.repo), '[]')
     FROM run_sandboxes s WHERE s.run_id = r.id) AS sandboxes,
  (SELECT COALESCE(json_agg(json_build_object('name', st.name, 'state', st.state, 'startedAt', st.started_at, 'finishedAt', st.finished_at) ORDER BY st.position), '[]')
     FROM run_steps st WHERE st.run_id = r.id) AS steps,
  (SELECT COALESCE(json_agg(json_build_object('repo', p.repo, 'url', p.url, 'number', p.number, 'state', p.state) ORDER BY p.repo, p.number), '[]')
     FROM pull_requests p WHERE p.run_id = r.id) AS pull_requests,
  (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'text', c.text, 'verdict', c.verdict, 'evidence', c.evidence,
       'judgement', CASE WHEN c.judged_at IS NULL THEN NULL ELSE json_build_object('verdict', c.judgement_verdict, 'reason', c.judgement_reason, 'by', c.judged_by, 'at', c.judged_at) END)
     ORDER BY c.position), '[]')
     FROM run_criteria c WHERE c.run_id = r.id) AS criteria`;

/** Newest first, with the id breaking ties so that paging is stable. */
export const RUN_ORDER = 'ORDER BY r.created_at DESC, r.id DESC';

export interface RunRowSql {
  id: string;
  project: string;
  ticket: string | null;
  platform: Platform;
  pipeline: string;
  state: RunState;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  error: string | null;
  model_calls: number;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_usd: string | number;
  sandboxes: { repo: string; pathPrefix: string; state: SandboxState }[];
  steps: { name: string; state: StepState; startedAt: string; finishedAt: string | null }[];
  pull_requests: { repo: string; url: string; number: number; state: PullRequestState }[];
  target: { repo: string; number: number } | null;
  criteria: (Omit<RunCriterionView, 'judgement'> & { judgement: (Omit<CriterionJudgementView, 'at'> & { at: string }) | null })[];
}

/** ISO 8601 UTC (`…Z`), whatever form the driver or json_build_object gave the time in. */
export function isoOrNull(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** A Run from its row; `ticketUrl` is the caller's (it comes from the configuration, not the row). */
export function runOfRow(row: RunRowSql, ticketUrl: string | null): Run {
  return {
    id: row.id,
    project: row.project,
    ticket: row.ticket,
    ticketUrl,
    platform: row.platform,
    pipeline: row.pipeline,
    state: row.state,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: isoOrNull(row.started_at),
    finishedAt: isoOrNull(row.finished_at),
    error: row.error,
    sandboxes: row.sandboxes,
    steps: row.steps.map((s) => ({ name: s.name, state: s.state, startedAt: new Date(s.startedAt).toISOString(), finishedAt: isoOrNull(s.finishedAt) })),
    usage: {
      modelCalls: Number(row.model_calls),
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      costUsd: Number(row.cost_usd),
    },
    pullRequests: row.pull_requests,
    target: row.target ? { repo: row.target.repo, number: row.target.number } : null,
    criteria: (row.criteria ?? []).map((c) => ({
      id: c.id, text: c.text, verdict: c.verdict, evidence: c.evidence,
      judgement: c.judgement ? { verdict: c.judgement.verdict, reason: c.judgement.reason, by: c.judgement.by, at: new Date(c.judgement.at).toISOString() } : null,
    })),
  };
}
