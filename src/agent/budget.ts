import { AgentBudget, type AgentLimits, type AgentOutcome, type AgentUsage } from './agent-types.js';

/** US dollars per million tokens, as in `agent.prices`. */
export interface TokenPrices {
  input_per_mtok: number;
  output_per_mtok: number;
}

/** What one call cost: nothing known without prices. */
export function callCost(inputTokens: number, outputTokens: number, prices: TokenPrices | null): number {
  if (!prices) return 0;
  return (inputTokens * prices.input_per_mtok) / 1e6 + (outputTokens * prices.output_per_mtok) / 1e6;
}

const count = new Intl.NumberFormat('en-US');
const seconds = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** "over" past the limit, "reaching" at it: the figures in a reason are exact either way. */
function relation(used: number, max: number): string {
  return used > max ? 'over' : 'reaching';
}

/**
 * The budget a session has spent (usage carries over between sends; steps and time are per
 * send), or null. Checked before every model call and after it; each reason is one line naming
 * the limit and the figures.
 */
export function spentBudget(
  usage: AgentUsage,
  limits: AgentLimits,
  prices: TokenPrices | null,
): Extract<AgentOutcome, { kind: 'budget' }> | null {
  const tokens = usage.inputTokens + usage.outputTokens;
  if (tokens >= limits.maxTokens) {
    return budget(AgentBudget.Tokens, `the agent used ${count.format(tokens)} tokens, ${relation(tokens, limits.maxTokens)} max_tokens ${count.format(limits.maxTokens)}`);
  }
  if (prices && limits.maxCostUsd !== null && usage.costUsd >= limits.maxCostUsd) {
    return budget(AgentBudget.Cost, `the agent spent $${usage.costUsd.toFixed(4)}, ${relation(usage.costUsd, limits.maxCostUsd)} max_cost_usd ${limits.maxCostUsd}`);
  }
  return null;
}

export function stepsSpent(calls: number, limits: AgentLimits): Extract<AgentOutcome, { kind: 'budget' }> | null {
  if (calls < limits.maxSteps) return null;
  return budget(AgentBudget.Steps, `the agent made ${count.format(calls)} model calls in this step, ${relation(calls, limits.maxSteps)} max_steps ${count.format(limits.maxSteps)}`);
}

export function timeSpent(elapsedMs: number, limits: AgentLimits): Extract<AgentOutcome, { kind: 'budget' }> {
  const limit = limits.stepTimeoutMs / 1000;
  return budget(AgentBudget.Time, `the agent step ran ${seconds.format(elapsedMs / 1000)} s, ${relation(elapsedMs / 1000, limit)} step_timeout_seconds ${seconds.format(limit)}`);
}

function budget(which: AgentBudget, reason: string): Extract<AgentOutcome, { kind: 'budget' }> {
  return { kind: 'budget', budget: which, reason };
}
