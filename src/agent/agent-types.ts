import type { Sandbox } from '../sandbox/sandbox-backend.js';

/**
 * The outward shape of the agent runtime: what a pipeline step hands the loop and what it gets
 * back. The loop (agent-loop.ts, createAgentSession) and its tools (tools/) implement it;
 * pipelines only use it.
 */

/** One working tree the model can reach: `prefix` is the repository name in a multi-repository run, else null. */
export interface AgentTree {
  prefix: string | null;
  sandbox: Sandbox;
}

/**
 * Which tools the model is offered. `code`: every tool (writes, `ask`); `review`: read-only tools
 * and `report_finding`; `read-only`: the read-only tools and `finish` alone (a caller adds its own,
 * e.g. the design dialogue's `propose_ticket`).
 */
export const AgentToolset = { Code: 'code', Review: 'review', ReadOnly: 'read-only' } as const;
export type AgentToolset = (typeof AgentToolset)[keyof typeof AgentToolset];

export const AskKind = { Question: 'question', Contradiction: 'contradiction', NotImplementable: 'not-implementable' } as const;
export type AskKind = (typeof AskKind)[keyof typeof AskKind];

import { FindingSeverity } from '../common/finding-severity.js';

export { FindingSeverity };

/** A `report_finding` call (pr-review, security-scan); `line` counts on the new side. */
export interface AgentFinding {
  path: string;
  line: number;
  endLine: number | null;
  severity: FindingSeverity;
  title: string;
  detail: string;
  suggestion: string | null;
}

/** Which hard limit ended an agent step. */
export const AgentBudget = { Steps: 'steps', Tokens: 'tokens', Cost: 'cost', Time: 'time' } as const;
export type AgentBudget = (typeof AgentBudget)[keyof typeof AgentBudget];

/**
 * How an agent step ended.
 * - `finished`: the model called `finish` (its summary) or answered without a tool call (its text);
 * - `asked`: the model called `ask` (hands the ticket back);
 * - `budget`: a hard limit stopped it (`reason` is one line naming the limit and the figures);
 * - `cancelled`: the run's abort signal fired;
 * - `failed`: the provider failed after retries, or answered something unusable (one-line `error`).
 */
export type AgentOutcome =
  | { kind: 'finished'; summary: string }
  | { kind: 'asked'; question: string; askKind: AskKind }
  | { kind: 'budget'; budget: AgentBudget; reason: string }
  | { kind: 'cancelled'; reason: string }
  | { kind: 'failed'; error: string };

/** Usage summed over every model call of a run. */
export interface AgentUsage {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export const ZERO_USAGE: AgentUsage = Object.freeze({ modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

/** One model call as a run event records it. */
export interface ModelCallRecord {
  /** `provider/model`. */
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  durationMs: number;
  /** The provider's finish reason (`tool-calls`, `stop`, `length`, …). */
  finishReason: string;
  /** Attempts it took (1 unless a 429 / 5xx was retried). */
  attempts: number;
}

/** One tool call as a run event records it. Arguments and output are scrubbed of secrets before they get here. */
export interface ToolCallRecord {
  tool: string;
  /** A short, one-line view of the arguments (`bash: npm test`, `write_file: src/a.ts`). */
  brief: string;
  /** The command's exit code (bash, search), null for tools that run none. */
  exitCode: number | null;
  ok: boolean;
  durationMs: number;
}

/** Told of everything the loop does; the pipeline step turns it into run events and the run's usage. */
export interface AgentObserver {
  modelCall(call: ModelCallRecord): void;
  toolCall(call: ToolCallRecord): void;
  /** The model's own text between tool calls (one event per answer; may be empty). */
  narration(text: string): void;
  /** The run's usage after each model call (the server writes it to the run). */
  usage(total: AgentUsage): Promise<void>;
}

/** The run's hard limits (the effective `agent:` block). */
export interface AgentLimits {
  /** Model calls per agent step (`send`). */
  maxSteps: number;
  /** Input + output tokens per run (all steps). */
  maxTokens: number;
  /** Per run; null: no cost limit (no prices, or none set). */
  maxCostUsd: number | null;
  /** Wall time per agent step. */
  stepTimeoutMs: number;
}

/**
 * Holds the conversation of one run: `send` adds a user message (the task, later the failing
 * build output of the repair round) and drives model calls and tool calls until an outcome.
 * Usage and the token / cost budgets carry over between sends; the step budget and the step
 * timeout start again with each send.
 */
export interface AgentSession {
  send(message: string): Promise<AgentOutcome>;
  readonly usage: AgentUsage;
  /** Findings reported so far (`review` toolset). */
  readonly findings: readonly AgentFinding[];
}
