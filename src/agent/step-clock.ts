import { abortError } from './abort.js';

/** The reason the step's own signal carries when its time is up. */
export class StepTimeoutError extends Error {
  override readonly name = 'StepTimeoutError';
}

/**
 * One `send`'s clock and signal: the signal fires when the run's signal does (cancel, shutdown)
 * or when the step's time is up, and everything in flight (the model call, a retry wait, a
 * command) listens to it alone.
 */
export class StepClock {
  readonly startedAt = Date.now();
  readonly deadline: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onRunAbort: () => void;

  constructor(private readonly run: AbortSignal, timeoutMs: number) {
    this.deadline = this.startedAt + timeoutMs;
    this.onRunAbort = () => this.controller.abort(abortError(run));
    if (run.aborted) this.onRunAbort();
    else run.addEventListener('abort', this.onRunAbort, { once: true });
    this.timer = setTimeout(() => this.controller.abort(new StepTimeoutError('the step ran out of time')), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once the run was cancelled; the step's own timeout is told apart by `timedOut`. */
  get cancelled(): boolean {
    return this.run.aborted;
  }

  get timedOut(): boolean {
    return !this.run.aborted && (this.controller.signal.aborted || Date.now() >= this.deadline);
  }

  get elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.run.removeEventListener('abort', this.onRunAbort);
  }
}
