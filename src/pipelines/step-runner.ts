import type { Pipeline, StepContext, StepResult } from './pipeline.js';
import { RunEventKind } from './run-event-kind.js';

/** Runs a pipeline's steps in order in the run's sandboxes; the first failure ends the run. */
export class StepRunner {
  async run(pipeline: Pipeline, context: Omit<StepContext, 'deadline' | 'pipeline'>): Promise<StepResult> {
    const full: StepContext = { ...context, pipeline: pipeline.name, deadline: Date.now() + pipeline.timeoutMs };
    for (const [index, step] of pipeline.steps.entries()) {
      const label = `step ${index + 1}/${pipeline.steps.length}: ${step.name}`;
      context.events.emit(RunEventKind.StepStarted, null, label);
      let result: StepResult;
      try {
        result = await step.run(full);
      } catch (error) {
        result = { ok: false, error: `${label} crashed: ${(error as Error).message}` };
      }
      if (!result.ok) {
        context.events.emit(RunEventKind.StepFailed, null, `${label}: ${result.error}`);
        return result;
      }
      context.events.emit(RunEventKind.StepFinished, null, label);
    }
    return { ok: true };
  }
}
