import { type RepositoryContext, contextsGate, readRepositoryContexts } from '../contexts/index.js';
import { contextLabel } from '../code/context-commands.js';
import type { PipelineStep, StepContext, StepResult } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';

/**
 * Before any model call: every repository has complete contexts, or the run fails naming what is
 * missing (contract, "Contexts and the bootstrap gate"). Hands the contexts found to `found`.
 */
export class ContextsGateStep implements PipelineStep {
  readonly name = 'contexts';

  constructor(private readonly project: string, private readonly found: (contexts: RepositoryContext[]) => void) {}

  async run(context: StepContext): Promise<StepResult> {
    const read = await Promise.all(context.sandboxes.map(({ repo, sandbox }) => readRepositoryContexts(sandbox, repo?.name ?? null)));
    const gate = contextsGate(read, { project: this.project });
    if (!gate.ok) {
      for (const line of gate.details) context.events.emit(RunEventKind.Agent, null, line);
      return { ok: false, error: gate.error };
    }
    this.found(gate.contexts);
    context.events.emit(RunEventKind.Agent, null, `contexts: ${gate.contexts.map((c) => contextLabel({ repo: c.repo, context: c.name })).join(', ')}`);
    return { ok: true };
  }
}
