import { type AgentSession, type AgentToolset, type AgentTree, type AgentUsage, ZERO_USAGE } from '../../agent/agent-types.js';
import { loadAgentRuntime } from '../../agent/agent-runtime.js';
import { providerGateKey } from '../../agent/provider-gate.js';
import { systemPromptFor } from '../../agent/prompt/system-prompts.js';
import { loadSkillTool } from '../../catalog/load-skill.tool.js';
import { skillsPromptSection } from '../../catalog/skills-prompt.js';
import type { Skill } from '../../catalog/skill-types.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import type { RunSandbox, StepContext } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';
import { agentEventsObserver } from './agent-events.js';
import type { AgentRunSupport } from './agent-support.js';

/** The run's trees as the model names them: by repository in a multi-repository run. */
export function agentTrees(sandboxes: readonly RunSandbox[]): AgentTree[] {
  return sandboxes.map(({ repo, sandbox }) => ({ prefix: sandboxes.length > 1 ? repo?.name ?? null : null, sandbox }));
}

function plus(a: AgentUsage, b: AgentUsage): AgentUsage {
  return { modelCalls: a.modelCalls + b.modelCalls, inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}

/**
 * A run's model sessions and what they used together: a run may open several (security-scan's
 * review and each refutation), and the run's budgets and recorded usage cover them all, not each.
 */
export class AgentRun {
  /** Usage of the sessions already closed. */
  private closed: AgentUsage = ZERO_USAGE;
  private readonly open = new Set<AgentSession>();

  /** The run's skills, read once (every session of the run offers the same). */
  private skills: Promise<readonly Skill[]> | null = null;

  constructor(readonly support: AgentRunSupport, readonly pipeline: string) {}

  /** The skills offered to this run; a catalog that cannot be read costs the run its skills, not the run. */
  private skillsOf(context: StepContext): Promise<readonly Skill[]> {
    this.skills ??= (this.support.skills?.(this.pipeline) ?? Promise.resolve([])).then((skills) => {
      if (skills.length > 0) context.events.emit(RunEventKind.Agent, null, `skills offered: ${skills.map((s) => s.name).join(', ')}`);
      return skills;
    }, (error: unknown) => {
      context.events.emit(RunEventKind.Agent, null, `the skills could not be read, none are offered: ${scrubSecrets((error as Error).message, this.support.secrets)}`);
      return [];
    });
    return this.skills;
  }

  get usage(): AgentUsage {
    return [...this.open].reduce((sum, session) => plus(sum, session.usage), this.closed);
  }

  /** A fresh conversation over `trees` with the run's remaining budgets; `close` it when done. */
  async session(context: StepContext, toolset: AgentToolset, trees: readonly AgentTree[], options: { maxSteps?: number } = {}): Promise<AgentSession> {
    const { agent, secrets, gate, noteUsage } = this.support;
    const before = this.usage;
    const { createAgentSession, languageModelFor } = await loadAgentRuntime();
    const skills = await this.skillsOf(context);
    const system = [await systemPromptFor(this.pipeline), skillsPromptSection(skills, secrets)].filter(Boolean).join('\n\n');
    const session = createAgentSession({
      model: languageModelFor(agent, { fetch: this.support.fetch }),
      modelLabel: `${agent.provider}/${agent.model}`,
      system,
      extraTools: skills.length > 0 ? [loadSkillTool(skills, secrets)] : [],
      trees: [...trees],
      toolset,
      limits: {
        maxSteps: Math.min(agent.max_steps, options.maxSteps ?? agent.max_steps),
        maxTokens: Math.max(0, agent.max_tokens - before.inputTokens - before.outputTokens),
        maxCostUsd: agent.prices && agent.max_cost_usd !== null ? Math.max(0, agent.max_cost_usd - before.costUsd) : null,
        stepTimeoutMs: Math.min(agent.step_timeout_seconds * 1000, Math.max(0, context.deadline - Date.now())),
      },
      prices: agent.prices,
      // The run record holds the run's totals: this session's on top of those closed before it.
      observer: agentEventsObserver(context.events, secrets, (total) => noteUsage(plus(this.closed, total))),
      signal: context.signal,
      secrets,
      gate,
      gateKey: providerGateKey(agent),
    });
    this.open.add(session);
    return session;
  }

  /** Adds a finished session's usage to the run's (call once per session). */
  close(session: AgentSession): void {
    if (!this.open.delete(session)) return;
    this.closed = plus(this.closed, session.usage);
  }
}
