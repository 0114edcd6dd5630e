import type { Logger } from '@nestjs/common';
import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import { TrackerError } from '../platforms/tracker-client.js';
import { jittered, retryDelay } from './jitter.js';
import { PollAborted } from './poll-aborted.js';
import type { CycleReport } from './poll-cycle.service.js';
import { PollMemory } from './poll-memory.js';
import { type PollTarget, pollingField } from './poll-target.js';
import type { PollingOptions } from './polling.options.js';

/** What a project's task needs from the poller that runs it. */
export interface ProjectPollerHost {
  runCycle(target: PollTarget, memory: PollMemory, active: () => boolean): Promise<CycleReport>;
  /** Whether the database serves: without it a cycle waits (the database reports itself), it does not fail. */
  ready(): boolean;
  /** The project's finding (null: none), replacing the last one. */
  report(project: string, found: Finding | null): void;
  /** Something changed that the `poller` subsystem reports (failing, recovered). */
  changed(): void;
  logger: Logger;
  options: PollingOptions;
}

/**
 * One project's polling: a cycle at once, then every interval ± jitter, each project on its own
 * timer so that a slow or failing tracker delays no other. A failed cycle is retried after a
 * back-off (5 s doubling, never beyond the interval, at least what the tracker asked for); while
 * it fails a finding names the project, and it clears when a cycle succeeds.
 */
export class ProjectPoller {
  readonly memory = new PollMemory();
  /** The last cycle that succeeded (diagnostics, the benchmark). */
  lastReport: CycleReport | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private failures = 0;
  private lastError: string | null = null;
  private retryInMs = 0;

  constructor(
    readonly target: PollTarget,
    private readonly host: ProjectPollerHost,
    /** False once this replica lost the lease: the cycle under way stops between steps. */
    private readonly leading: () => boolean,
  ) {}

  get name(): string {
    return this.target.project.name;
  }

  /** Failing and retrying: what the subsystem reports, e.g. `shop: retrying in 20 s: …`. */
  get failing(): string | null {
    return this.lastError === null ? null : `${this.name}: ${this.failures} failed poll(s), retrying in ${(this.retryInMs / 1000).toFixed(1)} s: ${this.lastError}`;
  }

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private get intervalMs(): number {
    return this.host.options.intervalMs ?? this.target.polling.interval_seconds * 1000;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.cycle(), ms);
    this.timer.unref();
  }

  private async cycle(): Promise<void> {
    this.timer = null;
    const active = () => !this.stopped && this.leading();
    if (!active()) return;
    if (!this.host.ready()) {
      this.schedule(jittered(this.host.options.retryBaseMs, this.host.options.jitter));
      return;
    }
    try {
      this.lastReport = await this.host.runCycle(this.target, this.memory, active);
      if (this.lastError !== null) this.host.logger.log(`polling ${this.name} works again after ${this.failures} failed poll(s)`);
      this.failures = 0;
      this.lastError = null;
      this.host.report(this.name, null);
      this.schedule(jittered(this.intervalMs, this.host.options.jitter));
    } catch (error) {
      if (error instanceof PollAborted || this.stopped) return;
      this.failures += 1;
      const asked = error instanceof TrackerError ? error.retryAfterMs ?? 0 : 0;
      this.retryInMs = Math.max(jittered(retryDelay(this.failures, this.host.options.retryBaseMs, this.intervalMs), this.host.options.jitter), asked);
      this.lastError = (error as Error).message;
      if (this.failures === 1) this.host.logger.warn(`polling ${this.name} failed, retrying with back-off: ${this.lastError}`);
      this.host.report(this.name, trackerFinding(this.target, error));
      this.schedule(this.retryInMs);
    }
    this.host.changed();
  }
}

/**
 * The finding of a failing poll, naming the project: blocking, since the project's tickets are
 * not read while it lasts (as an unreachable authority blocks while it is enforced). None for a
 * fault of our own database or store: those report themselves.
 */
export function trackerFinding(target: PollTarget, error: unknown): Finding | null {
  if (!(error instanceof TrackerError)) return null;
  const project = target.project.name;
  // Retryable first: a rate-limited 403 is GitHub being busy, not a refused credential.
  const what = error.retryable
    ? 'the tracker is down, busy or unreachable'
    : error.status === 401 || error.status === 403 ? `the tracker refuses the credentials (HTTP ${error.status})` : 'the tracker refused the poll';
  return finding(FindingSubsystem.Poller, 'blocking', `polling project ${project}: ${what}; retrying with back-off: ${error.message}`, pollingField(target.project));
}
