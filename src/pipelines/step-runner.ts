import { failSpan, inSpan } from '../tracing/spans.js';
import { type CriterionOutcome, type Pipeline, type StepContext, type StepObserver, type StepResult, StepState } from './pipeline.js';
import { RunEventKind } from './run-event-kind.js';

/** Runs a pipeline's steps in order in the run's sandboxes; the first failure ends the run. */
export class StepRunner {
  async run(pipeline: Pipeline, context: Omit<StepContext, 'deadline' | 'pipeline' | 'signal'> & { signal?: AbortSignal }, onStep?: StepObserver): Promise<StepResult> {
    const { events, runId, sandboxes } = context;
    const signal = context.signal ?? new AbortController().signal;
    const full: StepContext = {
      runId, sandboxes, events, pipeline: pipeline.name, deadline: Date.now() + pipeline.timeoutMs, signal,
      ...(context.artifacts ? { artifacts: context.artifacts } : {}),
    };
    // A step record that cannot be written is not a reason to fail the run: the events still say it.
    const note = (index: number, name: string, state: StepState) => onStep?.(index + 1, name, state).catch(() => undefined);
    // The last summary a step gave (the agent's account of its work) describes the run best.
    let summary: string | undefined;
    let criteria: readonly CriterionOutcome[] | undefined;
    for (const [index, step] of pipeline.steps.entries()) {
      const label = `step ${index + 1}/${pipeline.steps.length}: ${step.name}`;
      await note(index, step.name, StepState.Running);
      context.events.emit(RunEventKind.StepStarted, null, label);
      const result: StepResult = await inSpan(`step ${step.name}`, { attributes: { 'pipeline_service.step': step.name, 'pipeline_service.step.index': index + 1 } }, async (span) => {
        let outcome: StepResult;
        try {
          outcome = await step.run(full);
        } catch (error) {
          outcome = { ok: false, error: `${label} crashed: ${(error as Error).message}` };
        }
        if (!outcome.ok) failSpan(span, 'step failed');
        return outcome;
      });
      await note(index, step.name, result.ok ? StepState.Succeeded : StepState.Failed);
      if (!result.ok) {
        context.events.emit(RunEventKind.StepFailed, null, `${label}: ${result.error}`);
        return { ...result, failedStep: result.failedStep ?? step.name };
      }
      context.events.emit(RunEventKind.StepFinished, null, label);
      summary = result.summary ?? summary;
      criteria = result.criteria ?? criteria;
    }
    return {
      ok: true, summary: summary ?? `Ran the ${pipeline.name} pipeline: ${pipeline.steps.map((s) => s.name).join('; ')}.`,
      ...(criteria ? { criteria } : {}),
    };
  }
}
