/** The API's shapes the app reads (the server's OpenAPI document at /api/docs is the reference). */
export type RunState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'parked';
export const RUN_STATES: RunState[] = ['queued', 'running', 'parked', 'succeeded', 'failed', 'cancelled'];
export const LIVE_STATES: ReadonlySet<RunState> = new Set(['queued', 'running', 'parked']);
export type Platform = 'github' | 'gitlab' | 'azure-devops' | 'jira' | string;

export interface RunUsage { modelCalls: number; inputTokens: number; outputTokens: number; costUsd: number }
export interface RunStep { name: string; state: string; startedAt: string; finishedAt: string | null }
export type CriterionVerdict = 'met' | 'unmet' | 'not_applicable';
/** A person's judgement of a criterion (it changes no run state). */
export interface CriterionJudgement { verdict: CriterionVerdict; reason: string; by: string; at: string }
/** One acceptance criterion of the run's ticket: the agent's verdict (null: not reported) and a judgement. */
export interface RunCriterion { id: string; text: string; verdict: CriterionVerdict | null; evidence: string | null; judgement: CriterionJudgement | null }
export interface RunPullRequest { repo: string; url: string; number: number; state: 'open' | 'merged' | 'closed' }

export interface Run {
  id: string;
  project: string;
  ticket: string | null;
  /** The ticket's page on its tracker (null without one). */
  ticketUrl: string | null;
  platform: Platform;
  pipeline: string;
  state: RunState;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  sandboxes: { repo: string; pathPrefix: string; state: string }[];
  steps: RunStep[];
  usage: RunUsage;
  pullRequests: RunPullRequest[];
  target: { repo: string; number: number } | null;
  /** The ticket's acceptance criteria (empty: none; absent from a server before criteria). */
  criteria?: RunCriterion[];
}

export interface RunPage { items: Run[]; total: number }
export interface RunEvent { seq: number; at: string; kind: string; sandbox: string | null; text: string }
export interface RunEventPage { items: RunEvent[]; nextAfter: number | null }

export interface Finding {
  subsystem: string;
  severity: 'blocking' | 'advisory';
  reason: string;
  project: string | null;
  trigger: string | null;
  field: string | null;
}
export interface FindingsResponse { degraded: boolean; blocking: number; advisory: number; findings: Finding[] }

export interface DashboardSettings {
  authority: string | null;
  clientId: string | null;
  scopes: string;
  redirectPath: string;
  audience: string | null;
  build: string;
}

export interface TokenRefusal {
  reason: string;
  message: string;
  detail: {
    expectedAuthority: string | null;
    expectedAudience: string | null;
    expectedIssuer: string | null;
    presentedAudience: string | string[] | null;
    presentedIssuer: string | null;
    presentedVersion: string | null;
    message: string;
  } | null;
}

export interface Identity {
  authenticated: boolean;
  subject?: string;
  issuer?: string;
  roleClaim?: string;
  groupClaim?: string;
  roleClaimValues?: string[];
  groupClaimValues?: string[];
  roles?: string[];
  permissions?: string[];
  findings: Finding[];
  refusal?: TokenRefusal;
  [extra: string]: unknown;
}
