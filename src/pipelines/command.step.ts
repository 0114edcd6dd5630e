import { OutputStream } from '../sandbox/sandbox-backend.js';
import type { PipelineStep, StepContext, StepResult } from './pipeline.js';
import { RunEventKind } from './run-event-kind.js';

/** A shell command run in each of the run's sandboxes in turn; the first non-zero exit fails the step. */
export class CommandStep implements PipelineStep {
  readonly name: string;

  constructor(private readonly command: string) {
    this.name = command;
  }

  async run(context: StepContext): Promise<StepResult> {
    for (const { sandbox } of context.sandboxes) {
      const timeoutMs = context.deadline - Date.now();
      if (timeoutMs <= 0) return { ok: false, error: `pipeline ${context.pipeline} timed out before \`${this.command}\` in ${sandbox.name}` };
      const result = await sandbox.exec(this.command, {
        timeoutMs,
        onLine: (stream, line) => context.events.emit(stream === OutputStream.Stdout ? RunEventKind.Stdout : RunEventKind.Stderr, sandbox.name, line),
      });
      if (result.timedOut) return { ok: false, error: `\`${this.command}\` timed out in sandbox ${sandbox.name} (pipeline ${context.pipeline})` };
      if (result.exitCode !== 0) {
        const how = result.exitCode === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.exitCode}`;
        return { ok: false, error: `\`${this.command}\` ${how} in sandbox ${sandbox.name}` };
      }
    }
    return { ok: true };
  }
}
