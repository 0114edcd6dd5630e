import type { PipelineStep, StepResult } from './pipeline.js';

/** Stands in for a pipeline this release cannot run: it fails the run with why, never pretends success. */
export class UnavailableStep implements PipelineStep {
  readonly name = 'unavailable';

  constructor(private readonly reason: string) {}

  async run(): Promise<StepResult> {
    return { ok: false, error: this.reason };
  }
}
