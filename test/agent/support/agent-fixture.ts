import { randomBytes } from 'node:crypto';
import type { AgentLimits, AgentTree } from '../../../src/agent/agent-types.js';
import { type AgentSessionOptions, createAgentSession } from '../../../src/agent/agent-loop.js';
import { UNLIMITED_PROVIDER_GATE } from '../../../src/agent/provider-gate.js';
import { InProcessBackend } from '../../../src/sandbox/in-process.backend.js';
import type { Sandbox } from '../../../src/sandbox/sandbox-backend.js';
import { recordingObserver } from './recording-observer.js';
import type { scriptedModel } from './scripted-model.js';

const backend = new InProcessBackend('/usr/local/bin:/usr/bin:/bin');

export const GENEROUS: AgentLimits = { maxSteps: 50, maxTokens: 10_000_000, maxCostUsd: null, stepTimeoutMs: 60_000 };

/** Real in-process sandboxes, destroyed by `destroyAll`. */
export class Sandboxes {
  private readonly made: Sandbox[] = [];

  async create(name = 'repo', env: Record<string, string> = {}): Promise<Sandbox> {
    const sandbox = await backend.create({ runId: randomBytes(6).toString('hex'), name, env });
    this.made.push(sandbox);
    return sandbox;
  }

  async destroyAll(): Promise<void> {
    await Promise.all(this.made.splice(0).map((s) => s.destroy()));
  }
}

/** A session over `trees` driven by the scripted model, with a recording observer. */
export function sessionWith(
  scripted: ReturnType<typeof scriptedModel>,
  trees: AgentTree[],
  overrides: Partial<AgentSessionOptions> = {},
) {
  const recorded = recordingObserver();
  const session = createAgentSession({
    model: scripted.model,
    modelLabel: 'mock/scripted',
    system: 'You are a test agent.',
    trees,
    toolset: 'code',
    limits: GENEROUS,
    prices: null,
    observer: recorded.observer,
    signal: new AbortController().signal,
    secrets: [],
    gate: UNLIMITED_PROVIDER_GATE,
    retry: { baseDelayMs: 10 },
    ...overrides,
  });
  return { session, ...recorded };
}
