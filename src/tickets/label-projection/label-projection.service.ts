import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import { TicketState } from '../../database/entities/ticket.entity.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { TrackerError } from '../../platforms/tracker-client.js';
import { lifecycleLabel } from '../lifecycle.js';
import { type TicketKey, describeTicket } from '../ticket-key.js';
import { type TransitionEvent, TicketLifecycleService } from '../ticket-lifecycle.service.js';
import { HostRateLimiter } from './host-rate-limiter.service.js';
import { HostRecoveryProbe, hostIdOf } from './host-recovery.probe.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import { type LabelWriteResult, LifecycleLabelWriter } from './lifecycle-label.writer.js';
import { type ProjectionEntry, UNPOSTED_COMMENT_KEEP_MS, entryId, hasWork } from './projection-entry.js';
import { ProjectionEventsRecorder } from './projection-events.recorder.js';
import { type RunComment, RunCommentPoster, runCommentKey } from './run-comment.poster.js';
import { TicketCommentKind } from './failure-comment.js';
import { type ProjectTracker, ProjectTrackerFactory } from './project-tracker.factory.js';
import { TicketStatusWriter } from './ticket-status.writer.js';
import { collectSecrets, scrubSecrets } from '../../common/secret-scrubber.js';

/** A ticket in the stale-labels set this long without success is given up (ticket gone, config broken). */
const STALE_GIVE_UP_MS = 24 * 60 * 60_000;
const SHUTDOWN_WAIT_MS = 5_000;

/** A write that failed; `answered`: the host answered (a precondition failure), it is not down. */
interface Failure {
  runId: string;
  what: string;
  error: Error;
  answered?: boolean;
}

/**
 * Mirrors each committed lifecycle transition onto the ticket (spec: "the tracker label or
 * status is a best-effort projection written after the database transition"):
 * - the transition listener only records the wanted state and schedules a pass; it returns at once;
 * - per ticket one pass at a time, coalesced: only the latest state is written, a newer transition
 *   supersedes a pending write (and a pending status);
 * - a pass writes the label (LifecycleLabelWriter: per-platform atomicity), posts a run's comment
 *   exactly once (RunCommentPoster: a failure's error, a Done's pull requests, a Parked's
 *   hand-back), then sets `done_status` on Done or `needs_clarification_status` on Parked;
 * - failures (tracker down, 5xx, 429, precondition failures) are retried with exponential
 *   back-off, honouring a host's Retry-After; after `maxAttempts` the ticket joins the
 *   stale-labels set, retried every `staleRetryMs` until it succeeds or a newer state supersedes;
 * - a host that fails as if down is watched by HostRecoveryProbe: once it answers again, its
 *   waiting tickets are retried at once, not after the rest of their back-off;
 * - every failure is a log line and a `label-projection` run event; nothing here is ever fatal
 *   or changes what a run is.
 *
 * Pending work lives in memory; after a restart ProjectionCatchUp feeds `catchUp` what the
 * database says recently changed (labels, a Done's status, unposted failure comments), so the
 * tracker converges without waiting for the ticket's next transition.
 */
@Injectable()
export class LabelProjectionService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('LabelProjection');
  private readonly entries = new Map<string, ProjectionEntry>();
  private unsubscribe: (() => void) | null = null;
  private staleTimer: NodeJS.Timeout | null = null;
  private closing = false;
  private readonly unconfigured = new Set<string>();

  constructor(
    private readonly lifecycle: TicketLifecycleService,
    private readonly trackers: ProjectTrackerFactory,
    private readonly writer: LifecycleLabelWriter,
    private readonly comments: RunCommentPoster,
    private readonly statuses: TicketStatusWriter,
    private readonly events: ProjectionEventsRecorder,
    private readonly limiter: HostRateLimiter,
    private readonly recovery: HostRecoveryProbe,
    private readonly config: ConfigService,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.lifecycle.onTransition((event) => this.onTransition(event));
    this.config.onReload(() => this.unconfigured.clear());
    this.recovery.attach({ waitingOn: (host) => this.waitingOn(host), retryHost: (host) => this.retryHost(host) });
    this.staleTimer = setInterval(() => this.retryStale(), this.options.staleRetryMs);
    this.staleTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.unsubscribe?.();
    if (this.staleTimer) clearInterval(this.staleTimer);
    const running: Promise<void>[] = [];
    for (const entry of this.entries.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      if (entry.running) running.push(entry.running);
    }
    const pending = [...this.entries.values()].filter(hasWork).length;
    if (pending > 0) this.logger.warn(`shutting down with ${pending} ticket(s) whose labels are not written yet; their next transition writes the current state`);
    await Promise.race([Promise.allSettled(running), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref())]);
    await this.events.flush();
  }

  /** The transition listener: records what to write and schedules it. Never throws, never waits. */
  onTransition(event: TransitionEvent): void {
    if (this.closing) return;
    const entry = this.entryFor(event.key);
    entry.label = { runId: event.runId, state: event.to };
    entry.version++;
    const status = this.statuses.statusOf(event.key, event.to);
    entry.status = status ? { runId: event.runId, status, state: event.to } : null;
    if (event.to === TicketState.Failed) this.queueComment(entry, { kind: TicketCommentKind.Failure, runId: event.runId, pipeline: event.pipeline, error: event.error });
    // The pull requests a successful run opened are listed on the ticket before its done status is set.
    if (event.to === TicketState.Done) this.queueComment(entry, { kind: TicketCommentKind.PullRequests, runId: event.runId, pipeline: event.pipeline, error: null });
    // The hand-back (question and how to answer) is posted before the needs-clarification status is set.
    if (event.to === TicketState.Parked) this.queueComment(entry, { kind: TicketCommentKind.HandBack, runId: event.runId, pipeline: event.pipeline, error: null });
    entry.attempts = 0;
    entry.staleSince = null;
    this.kick(entry, 0);
    void this.events.flush(); // a run that just ended can take its held-back events now
  }

  /**
   * Start-up catch-up of one ticket: the state the database holds (`runId` is its current run)
   * and the failure comment still to post, merged into whatever work a newer transition already
   * queued. Safe to repeat and on several replicas: an unchanged label is not written, the done
   * status is re-checked against the database and the tracker, a comment is posted once only.
   */
  catchUp(key: TicketKey, current: { runId: string; state: TicketState } | null, comments: readonly RunComment[], delayMs: number): void {
    if (this.closing) return;
    const entry = this.entryFor(key);
    if (current && !entry.label) {
      entry.label = current;
      entry.version++;
    }
    const status = current && !entry.status ? this.statuses.statusOf(key, current.state) : null;
    if (current && status) entry.status = { runId: current.runId, status, state: current.state, ifStillTriggered: true };
    for (const comment of comments) if (!entry.comments.has(runCommentKey(comment))) this.queueComment(entry, comment);
    if (!entry.timer) this.kick(entry, delayMs); // a pending retry (or the stale round) takes the merged work
  }

  /** Tickets whose projection exhausted its retries and is retried every `staleRetryMs`. */
  staleTickets(): string[] {
    return [...this.entries.values()].filter((e) => e.staleSince !== null).map((e) => describeTicket(e.key));
  }

  /** Tickets with anything still to write. */
  pendingTickets(): string[] {
    return [...this.entries.values()].filter(hasWork).map((e) => describeTicket(e.key));
  }

  /** Resolves once no pass is running (timers still due are not waited for). */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.entries.values()].map((e) => e.running).filter((r): r is Promise<void> => r !== null);
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  /** Logged once per reason (and again after a configuration reload). */
  private noteUnconfigured(reason: string): void {
    if (this.unconfigured.has(reason)) return;
    this.unconfigured.add(reason);
    this.logger.warn(`lifecycle labels and failure comments are not mirrored: ${reason}`);
  }

  private entryFor(key: TicketKey): ProjectionEntry {
    const id = entryId(key);
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { id, key, host: null, label: null, version: 0, status: null, comments: new Map(), attempts: 0,
        timer: null, running: null, rerun: false, staleSince: null, failed: false };
      this.entries.set(id, entry);
    }
    return entry;
  }

  private queueComment(entry: ProjectionEntry, comment: RunComment): void {
    entry.comments.set(runCommentKey(comment), comment);
  }

  /**
   * Runs a pass after `delayMs`. While a pass runs, a kick only asks for another pass at once
   * (a newer transition). A pass's own retry is scheduled here once the pass has ended, never by
   * kicking from inside it: that would read as a newer transition and drop the back-off.
   */
  private kick(entry: ProjectionEntry, delayMs: number): void {
    if (this.closing) return;
    if (entry.running) {
      entry.rerun = true;
      return;
    }
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = null;
      entry.running = this.pass(entry).catch((error: Error) => {
        this.logger.error(`label pass of ${describeTicket(entry.key)} failed unexpectedly: ${error.stack ?? error.message}`);
        return null;
      }).then((retryInMs) => {
        entry.running = null;
        if (entry.rerun) {
          entry.rerun = false;
          this.kick(entry, 0);
        } else if (retryInMs !== null) {
          this.kick(entry, retryInMs);
        }
      });
    }, delayMs);
    entry.timer.unref();
  }

  /** Whether any ticket still has work that waits for `host`. */
  private waitingOn(host: string): boolean {
    for (const entry of this.entries.values()) if (entry.host === host && hasWork(entry)) return true;
    return false;
  }

  /** `host` answers again: its waiting tickets are retried now, spaced like the catch-up so the reads do not burst. */
  private retryHost(host: string): void {
    const waiting = [...this.entries.values()].filter((e) => e.host === host && !e.running && hasWork(e));
    if (waiting.length === 0) return;
    this.logger.log(`retrying the labels of ${waiting.length} ticket(s) waiting for ${host}`);
    waiting.forEach((entry, i) => this.kick(entry, i * this.options.catchUpSpacingMs));
  }

  private retryStale(): void {
    void this.events.flush();
    const now = Date.now();
    for (const entry of this.entries.values()) {
      if (entry.staleSince === null || entry.running || entry.timer) continue;
      const staleMs = now - entry.staleSince;
      if (staleMs > STALE_GIVE_UP_MS && (entry.label || entry.status)) {
        this.logger.warn(`${describeTicket(entry.key)}: label still not written after a day in the stale-labels set; given up until its next transition or the next start`);
        entry.label = null;
        entry.status = null;
      }
      // A failure comment is kept longer: no later transition would ever post it.
      if (staleMs > UNPOSTED_COMMENT_KEEP_MS && entry.comments.size > 0) {
        this.logger.warn(`${describeTicket(entry.key)}: comment(s) ${[...entry.comments.keys()].join(', ')} still not posted after ${Math.round(UNPOSTED_COMMENT_KEEP_MS / 86_400_000)} days; given up`);
        entry.comments.clear();
      }
      if (!hasWork(entry)) {
        this.entries.delete(entry.id);
        continue;
      }
      this.kick(entry, 0);
    }
  }

  /** One pass over the entry's work; resolves to the delay of the next try of whatever failed (null: none due). */
  private async pass(entry: ProjectionEntry): Promise<number | null> {
    entry.rerun = false;
    const failures: Failure[] = [];
    let tracker: ProjectTracker | null = null;
    try {
      const resolved = this.trackers.forProject(entry.key.project, entry.key.platform);
      if ('unconfigured' in resolved) {
        this.noteUnconfigured(resolved.unconfigured);
        this.entries.delete(entry.id);
        return null;
      }
      tracker = resolved;
      entry.host = hostIdOf(resolved);
    } catch (error) {
      const runId = entry.label?.runId ?? entry.status?.runId ?? [...entry.comments.values()][0]?.runId ?? null;
      if (runId) failures.push({ runId, what: 'tracker', error: error as Error });
    }
    if (tracker) {
      const readsTicket = entry.label !== null; // a label write always reads the ticket first
      await this.writeLabel(entry, tracker, failures);
      await this.postComments(entry, tracker, failures);
      await this.writeStatus(entry, tracker, failures);
      if (failures.some(hostDown)) this.recovery.hostDown(tracker, entry.key.ticket);
      else if (failures.length === 0 && readsTicket) this.recovery.hostAnswered(tracker);
    }
    if (entry.rerun) return null; // a newer transition arrived: the next pass starts at once, attempts reset
    if (failures.length === 0) {
      if (!hasWork(entry)) this.settle(entry);
      return null;
    }
    return this.retryDelay(entry, failures, tracker);
  }

  private async writeLabel(entry: ProjectionEntry, tracker: ProjectTracker, failures: Failure[]): Promise<void> {
    const wanted = entry.label;
    if (!wanted) return;
    const version = entry.version;
    const what = `label ${lifecycleLabel(wanted.state)}`;
    let result: LabelWriteResult | null = null;
    try {
      result = await this.writer.write(tracker, entry.key, () => this.stateNow(entry, wanted.state));
      if (result.outcome === 'PreconditionFailed') {
        failures.push({ runId: wanted.runId, what, error: new TrackerError(result.reason, tracker.platform, null, true), answered: true });
        return;
      }
      if (result.outcome === 'Updated') this.logger.log(`${describeTicket(entry.key)}: label ${result.label} written`);
      if (entry.version === version) entry.label = null;
    } catch (error) {
      failures.push({ runId: wanted.runId, what, error: error as Error });
    } finally {
      this.metrics.labelWritten(tracker.platform, result?.outcome ?? 'Error');
    }
  }

  private async writeStatus(entry: ProjectionEntry, tracker: ProjectTracker, failures: Failure[]): Promise<void> {
    const wanted = entry.status;
    if (!wanted) return;
    try {
      await this.statuses.write(entry, tracker, wanted);
    } catch (error) {
      failures.push({ runId: wanted.runId, what: `status ${wanted.status}`, error: error as Error });
    }
  }

  private async postComments(entry: ProjectionEntry, tracker: ProjectTracker, failures: Failure[]): Promise<void> {
    for (const [key, comment] of [...entry.comments]) {
      try {
        await this.comments.postOnce(tracker, entry.key, comment);
        entry.comments.delete(key);
      } catch (error) {
        failures.push({ runId: comment.runId, what: `${comment.kind} comment`, error: error as Error });
      }
    }
  }

  /** The state to write now: the database's (the truth, possibly newer), else the one heard. */
  private async stateNow(entry: ProjectionEntry, heard: TicketState): Promise<TicketState> {
    try {
      return (await this.lifecycle.find(entry.key))?.state ?? heard;
    } catch {
      return heard;
    }
  }

  private settle(entry: ProjectionEntry): void {
    if (entry.failed) {
      const text = `labels of ${describeTicket(entry.key)} caught up${entry.staleSince !== null ? ' (left the stale-labels set)' : ''}`;
      this.logger.log(text);
      this.recordForLatestRun(entry, text);
    }
    this.entries.delete(entry.id);
  }

  private recordForLatestRun(entry: ProjectionEntry, text: string): void {
    // The run whose transition was projected last; the entry no longer names it once written.
    void this.lifecycle.find(entry.key).then((row) => {
      if (row?.runId) this.events.record(row.runId, text);
    }).catch(() => undefined);
  }

  /** Counts the failed attempt, reports it, and returns when to try again (null: the stale round retries it). */
  private retryDelay(entry: ProjectionEntry, failures: Failure[], tracker: ProjectTracker | null): number | null {
    entry.attempts++;
    entry.failed = true;
    const retryable = failures.every((f) => !(f.error instanceof TrackerError) || f.error.retryable);
    const mandated = Math.max(0, ...failures.map((f) => (f.error instanceof TrackerError ? (f.error.retryAfterMs ?? 0) : 0)));
    if (mandated > 0 && tracker) this.limiter.backOff(tracker.platform, tracker.host, mandated);
    const secrets = collectSecrets(this.config.config, this.config.env);
    const exhausted = !retryable || entry.attempts >= this.options.maxAttempts;
    if (exhausted && entry.staleSince !== null) {
      this.logger.debug(scrubSecrets(`${describeTicket(entry.key)}: still failing in the stale-labels set: ${failures.map((f) => f.error.message).join('; ')}`, secrets));
      return null; // the stale round retries it; already reported
    }
    const delay = exhausted ? this.options.staleRetryMs : Math.max(mandated, this.backoff(entry.attempts));
    for (const failure of failures) {
      const next = exhausted
        ? `${retryable ? `gave up after ${entry.attempts} attempt(s)` : 'not retryable'}; kept in the stale-labels set and retried every ${Math.round(this.options.staleRetryMs / 1000)} s`
        : `attempt ${entry.attempts} of ${this.options.maxAttempts}; next try in ${Math.round(delay / 100) / 10} s`;
      const text = scrubSecrets(`${failure.what} on ${describeTicket(entry.key)} not written: ${failure.error.message} (${next})`, secrets);
      this.logger.warn(text);
      this.events.record(failure.runId, text);
    }
    if (exhausted) {
      entry.staleSince = Date.now();
      return null; // retried by the stale round
    }
    return delay;
  }

  /** Exponential with ±20 % jitter, capped. */
  private backoff(attempt: number): number {
    const base = Math.min(this.options.maxRetryDelayMs, this.options.retryBaseMs * 2 ** (attempt - 1));
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }
}

/** A failure the way a host that is down fails (network, timeout, 5xx, 429), not one it answered. */
function hostDown(failure: Failure): boolean {
  return !failure.answered && failure.error instanceof TrackerError && failure.error.retryable;
}
