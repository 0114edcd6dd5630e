import type { createAgentSession } from './agent-loop.js';
import type { languageModelFor } from './language-model.js';

export interface AgentRuntime {
  createAgentSession: typeof createAgentSession;
  languageModelFor: typeof languageModelFor;
}

/**
 * The loop and the model providers (the AI SDK and four provider packages) load on first use:
 * a server that runs no agent pipeline never holds them, which keeps its boot time and idle
 * memory where they were before the agent existed.
 */
export async function loadAgentRuntime(): Promise<AgentRuntime> {
  const [loop, models] = await Promise.all([import('./agent-loop.js'), import('./language-model.js')]);
  return { createAgentSession: loop.createAgentSession, languageModelFor: models.languageModelFor };
}
