import { SpanKind, inSpan } from '../tracing/spans.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { RunState } from '../database/entities/run.entity.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RunQuestionsService } from '../conversations/hand-back/run-questions.service.js';
import type { HandBackRequest, StepResult } from '../pipelines/pipeline.js';
import { executePipeline } from '../pipelines/pipeline-execution.js';
import { PipelineCatalogService } from '../pipelines/pipeline-catalog.service.js';
import { RunEventKind } from '../pipelines/run-event-kind.js';
import { sandboxName } from '../pipelines/run-environment.js';
import { StepRunner } from '../pipelines/step-runner.js';
import type { Sandbox, SandboxBackend } from '../sandbox/sandbox-backend.js';
import { SANDBOX_BACKEND } from '../sandbox/sandbox.tokens.js';
import { LifecycleTrigger } from '../tickets/lifecycle.js';
import { TicketLifecycleService } from '../tickets/ticket-lifecycle.service.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { CapacityQueueService } from './capacity/capacity-queue.service.js';
import { exceedsCapacity } from './capacity/footprint.js';
import { HeartbeatService } from './heartbeat.service.js';
import type { PipelineRequest } from './pipeline-request.js';
import { RunCriteriaService } from './criteria/run-criteria.service.js';
import { RunArtifactsService } from './run-artifacts.service.js';
import type { RunEventWriter } from './run-event-writer.js';
import { RunEventsService } from './run-events.service.js';
import { RunRecordsService } from './run-records.service.js';

/**
 * `deferred`: not admitted yet (or shutting down); the consumer gives the request back to the queue.
 * `stopped`: the run's record ended elsewhere while it ran here (cancelled); its commands were killed.
 */
export const RunOutcome = { Succeeded: 'succeeded', Failed: 'failed', Parked: 'parked', Skipped: 'skipped', Deferred: 'deferred', Stopped: 'stopped' } as const;
export type RunOutcome = (typeof RunOutcome)[keyof typeof RunOutcome];

/**
 * How long a taken request waits for its admission before it gives its consumer slot back. A
 * request never waits in a slot for long: the run ahead of it in FIFO order may be admitted while
 * its own request waits for a slot, which waiting requests would otherwise hold for ever.
 */
const ADMISSION_WAIT_MS = 1000;

/**
 * Why a run under way was stopped from outside. `ended`: the state its record already holds
 * (a cancel): nothing more is written for it. null: this consumer still ends it (Failed).
 */
interface Stop {
  reason: string;
  ended: RunState | null;
}

/**
 * Executes one dequeued request: heartbeat from the moment it is taken, wait briefly for capacity
 * (strict FIFO; deferred when not admitted), Enqueued → InProgress before the first command, the
 * pipeline in N sandboxes, then Done or Failed. A request whose run is no longer queued (already
 * taken, ended, or unknown) is skipped, so a pushed-again request never runs a pipeline twice.
 */
@Injectable()
export class RunExecutorService {
  private readonly logger = new Logger('RunExecutor');
  private closing = false;
  /** Sandboxes of each run under way: destroyed (their commands killed) by `stopRuns()` and `stopRun()`. */
  private readonly live = new Map<string, Set<Sandbox>>();
  /** Why a run was stopped from outside, for its error. */
  private readonly stopped = new Map<string, Stop>();
  /** Runs whose request this process is executing, from the moment it is taken until it is let go. */
  private readonly taken = new Set<string>();

  constructor(
    private readonly records: RunRecordsService,
    private readonly events: RunEventsService,
    private readonly heartbeat: HeartbeatService,
    private readonly capacity: CapacityQueueService,
    private readonly lifecycle: TicketLifecycleService,
    private readonly catalog: PipelineCatalogService,
    private readonly runner: StepRunner,
    private readonly config: ConfigService,
    @Inject(SANDBOX_BACKEND) private readonly backend: SandboxBackend,
    private readonly metrics: MetricsService,
    private readonly workspaces: WorkspacesService,
    private readonly artifacts: RunArtifactsService,
    private readonly questions: RunQuestionsService,
    private readonly criteria: RunCriteriaService,
  ) {
    heartbeat.onSilence((silentMs) => void this.stopRuns(
      `stopped: no heartbeat reached the store or the database for ${Math.round(silentMs / 1000)} s, so the ticket may be claimed again elsewhere`));
  }

  /** Stop waiting for capacity (shutdown: waiting requests are deferred); runs already started finish. */
  close(): void {
    this.closing = true;
  }

  /**
   * Shutdown's grace ran out: kills the commands of the runs still under way (no process group may
   * outlive the server and act for a ticket that is then claimed again); those runs end Failed.
   */
  interrupt(): Promise<void> {
    return this.stopRuns('interrupted: the server shut down during the run');
  }

  /** Aborted when a run is stopped from outside, so a step waiting on something else than a command (a model call) ends too. */
  private readonly aborts = new Map<string, AbortController>();
  /** Runs this process has taken and not let go yet (the control watcher checks their records). */
  runsUnderWay(): string[] {
    return [...this.taken];
  }

  /**
   * Stops a run taken here whose record has already ended as `ended` (cancelled, possibly from
   * another replica): its sandboxes are destroyed (commands killed), sandboxes it creates later
   * are destroyed at once, and nothing more is written for it. False when this process does not
   * have the run.
   */
  async stopRun(runId: string, reason: string, ended: RunState): Promise<boolean> {
    if (!this.taken.has(runId)) return false;
    if (this.stopped.get(runId)?.ended) return true;
    this.stopped.set(runId, { reason, ended });
    const sandboxes = [...(this.live.get(runId) ?? [])];
    this.logger.warn(`run ${runId} stopped (${reason}): destroying ${sandboxes.length} sandbox(es)`);
    this.aborts.get(runId)?.abort(new Error(reason));
    await Promise.all(sandboxes.map((sandbox) => sandbox.destroy().catch(() => undefined)));
    return true;
  }

  /** Kills the commands of every run under way; each then ends Failed with `reason`. */
  private async stopRuns(reason: string): Promise<void> {
    const runs = [...this.live];
    if (runs.length === 0) return;
    this.logger.warn(`${reason}: stopping ${runs.length} run(s)`);
    for (const [runId] of runs) {
      if (!this.stopped.get(runId)?.ended) this.stopped.set(runId, { reason, ended: null });
      this.aborts.get(runId)?.abort(new Error(reason));
    }
    await Promise.all(runs.flatMap(([, sandboxes]) => [...sandboxes].map((sandbox) => sandbox.destroy().catch(() => undefined))));
  }

  /** `firstTake`: the request is taken for the first time (not after a deferral). */
  async execute(request: PipelineRequest, firstTake = true): Promise<RunOutcome> {
    // A request taken again while this process still runs it (BullMQ hands back a job whose lock
    // lapsed): skipped without touching the first take's records, or a cancel could no longer find it.
    if (this.taken.has(request.runId)) {
      this.logger.log(`request for run ${request.runId} skipped: this process already runs it`);
      return RunOutcome.Skipped;
    }
    // Taken before the record is read: a cancel committed after that read still reaches this run.
    this.taken.add(request.runId);
    try {
      const run = await this.records.find(request.runId);
      if (!run || run.state !== RunState.Queued) {
        this.logger.log(`request for run ${request.runId} skipped: run is ${run ? run.state : 'unknown'}`);
        return RunOutcome.Skipped;
      }
      const attributes = {
        'pipeline_service.run_id': request.runId, 'pipeline_service.platform': request.platform, 'pipeline_service.project': request.project,
        'pipeline_service.pipeline': request.pipeline, ...(request.ticket ? { 'pipeline_service.ticket': request.ticket } : {}),
      };
      // One span per take of the run, in the trace of the delivery or command that queued it.
      return await inSpan(`run ${request.pipeline}`, { attributes, kind: SpanKind.CONSUMER, traceparent: request.traceparent ?? null }, async (span) => {
        const outcome = await this.executeQueued(request, run.createdAt, firstTake);
        span.setAttribute('pipeline_service.run.outcome', String(outcome));
        return outcome;
      });
    } finally {
      this.taken.delete(request.runId);
      this.stopped.delete(request.runId);
    }
  }

  private async executeQueued(request: PipelineRequest, createdAt: Date, firstTake: boolean): Promise<RunOutcome> {
    const events = await this.events.open(request.runId);
    try {
      // Inside the try: a failed start must still stop the heartbeat, or the run would look alive for ever.
      await this.heartbeat.start(request.runId);
      const outcome = await this.admitAndRun(request, createdAt, events, firstTake);
      if (outcome === RunOutcome.Deferred) await this.heartbeat.release(request.runId);
      return outcome;
    } finally {
      await events.flush();
      await this.heartbeat.stop(request.runId);
      void this.capacity.admit();
    }
  }

  private async admitAndRun(request: PipelineRequest, createdAt: Date, events: RunEventWriter, firstTake: boolean): Promise<RunOutcome> {
    const footprint = this.capacity.footprintFor(request.project);
    const capacity = this.config.config.capacity;
    if (exceedsCapacity(footprint, capacity)) {
      const error = `run needs ${footprint.cpu} cpu and ${footprint.memory} bytes of memory, more than the whole capacity (${capacity?.cpu} cpu, ${capacity?.memory} bytes)`;
      const startedAt = await this.begin(request, createdAt);
      if (startedAt === null) return RunOutcome.Skipped;
      return this.end(request, { ok: false, error }, events, startedAt);
    }
    if (firstTake) events.emit(RunEventKind.Queued, null, `waiting for capacity: ${footprint.cpu} cpu, ${footprint.memory} bytes`);
    const admission = await this.capacity.waitForAdmission(request.runId, footprint, ADMISSION_WAIT_MS, () => this.closing);
    if (admission === 'gone') return RunOutcome.Skipped;
    if (admission === 'not-yet') return RunOutcome.Deferred;
    events.emit(RunEventKind.Admitted, null, 'capacity admitted');
    const startedAt = await this.begin(request, createdAt);
    if (startedAt === null) return RunOutcome.Skipped;
    let result: StepResult;
    const abort = new AbortController();
    this.aborts.set(request.runId, abort);
    const early = this.stopped.get(request.runId);
    if (early) abort.abort(new Error(early.reason));
    try {
      result = await executePipeline({
        run: request,
        project: this.config.config.projects[request.project] ?? null,
        pipeline: this.catalog.resolve(request.pipeline, {
          ...request,
          noteUsage: (usage) => this.records.noteUsage(request.runId, usage),
          reviewsFor: (repo) => this.workspaces.reviewsFor(repo),
          criteria: {
            capture: (criteria) => this.criteria.capture(request.runId, criteria),
            report: (id, verdict, evidence) => this.criteria.report(request.runId, id, verdict, evidence),
          },
        }),
        backend: this.tracked(request.runId),
        runner: this.runner,
        events,
        onSandbox: (repo, state) => this.records.noteSandbox(request.runId, sandboxName(repo), repo?.path_prefix ?? '', state),
        onStep: (position, name, state) => this.records.noteStep(request.runId, position, name, state),
        workspace: this.workspaces.forRun(request, events),
        signal: abort.signal,
        artifacts: this.artifacts.sinkFor(request.runId),
      });
    } catch (error) {
      result = { ok: false, error: `run crashed: ${(error as Error).message}` };
    } finally {
      this.aborts.delete(request.runId);
    }
    // Its sandboxes are gone: nothing of the run is left to stop, so a cancel from now on is the database's to decide.
    this.taken.delete(request.runId);
    const stop = this.stopped.get(request.runId);
    this.live.delete(request.runId);
    if (stop?.ended) return this.endStopped(request, stop.reason, stop.ended, result, events, startedAt);
    if (stop !== undefined && !result.ok) result = { ok: false, error: `${stop.reason} (${result.error})` };
    return this.end(request, result, events, startedAt);
  }

  /**
   * The agent handed the ticket back (its work already pushed as a wip commit by the workspace):
   * InProgress → Parked with the question recorded in the same transaction. The run stays live
   * (it holds its ticket) with no sandbox, heartbeat or capacity until an answer or a retry ends
   * it; it is not counted as finished. False when the ticket had moved on: the run then ends as a
   * failure like any other.
   */
  private async park(request: PipelineRequest, error: string, handBack: HandBackRequest, events: RunEventWriter): Promise<boolean> {
    const key = { platform: request.platform, project: request.project, ticket: request.ticket as string };
    const parked = await this.lifecycle.transition(request.runId, LifecycleTrigger.Park, error, {
      alongside: (tx) => this.questions.record(tx, key, request.runId, handBack),
    });
    if (parked === null) return false;
    events.emit(RunEventKind.RunParked, null, `${error}; the run waits for an answer`);
    await events.flush();
    this.logger.log(`run ${request.runId} (${request.project}/${request.ticket} ${request.pipeline}) parked: ${error}`);
    return true;
  }

  /** A run whose record ended elsewhere (cancelled) while it ran here: says so, writes no outcome. */
  private async endStopped(request: PipelineRequest, reason: string, ended: RunState, result: StepResult, events: RunEventWriter, startedAt: number): Promise<RunOutcome> {
    const kind = ended === RunState.Cancelled ? RunEventKind.RunCancelled : RunEventKind.RunFailed;
    events.emit(kind, null, `${reason}: commands killed and sandboxes removed${result.ok ? '' : ` (${result.error})`}`);
    await events.flush();
    this.metrics.runFinished(request.pipeline, ended, (performance.now() - startedAt) / 1000);
    this.logger.log(`run ${request.runId} (${request.project}/${request.ticket ?? '-'} ${request.pipeline}) stopped: ${reason}`);
    return RunOutcome.Stopped;
  }

  /** The sandbox backend, with every sandbox it creates for `runId` listed in `live` until destroyed. */
  private tracked(runId: string): SandboxBackend {
    const { backend } = this;
    const live = this.live.get(runId) ?? new Set<Sandbox>();
    this.live.set(runId, live);
    return {
      kind: backend.kind,
      probe: () => backend.probe(),
      version: () => backend.version(),
      create: async (spec) => {
        const sandbox = await backend.create(spec);
        const stop = this.stopped.get(runId);
        if (stop !== undefined) {
          await sandbox.destroy();
          throw new Error(stop.reason);
        }
        live.add(sandbox);
        return {
          name: sandbox.name,
          workdir: sandbox.workdir,
          exec: (command, options) => sandbox.exec(command, options),
          putArchive: (tar) => sandbox.putArchive(tar),
          getArchive: () => sandbox.getArchive(),
          ...(sandbox.readTree && { readTree: (since) => sandbox.readTree!(since) }),
          ...(sandbox.markTree && { markTree: () => sandbox.markTree!() }),
          destroy: async () => {
            live.delete(sandbox);
            await sandbox.destroy();
          },
        };
      },
    };
  }

  /**
   * Enqueued → InProgress (or queued → running for a ticket-less run): when it started (this
   * process's monotonic clock, for its duration), or null when someone else has it.
   */
  private async begin(request: PipelineRequest, createdAt: Date): Promise<number | null> {
    const started = request.ticket === null
      ? await this.records.startTicketless(request.runId)
      : (await this.lifecycle.transition(request.runId, LifecycleTrigger.Dequeue)) !== null;
    if (!started) {
      this.logger.warn(`run ${request.runId} not started: it is no longer waiting to start`);
      return null;
    }
    this.metrics.runStarted(request.pipeline, (Date.now() - createdAt.getTime()) / 1000);
    return performance.now();
  }

  private async end(request: PipelineRequest, result: StepResult, events: RunEventWriter, startedAt: number): Promise<RunOutcome> {
    if (!result.ok && result.handBack && request.ticket !== null && (await this.park(request, result.error, result.handBack, events))) return RunOutcome.Parked;
    const error = result.ok ? null : result.error;
    events.emit(result.ok ? RunEventKind.RunSucceeded : RunEventKind.RunFailed, null, error ?? `pipeline ${request.pipeline} succeeded`);
    await events.flush();
    const state = result.ok ? RunState.Succeeded : RunState.Failed;
    // The ticket moved on without this run (e.g. reverted as stale while paused): still end the run.
    const recorded = (request.ticket !== null && (await this.lifecycle.transition(request.runId, result.ok ? LifecycleTrigger.Succeed : LifecycleTrigger.Fail, error)) !== null)
      || (await this.records.finish(request.runId, state, error));
    // What the run is counted as: what its record says, not what this process would have written.
    let final: RunState | null = state;
    if (!recorded) {
      // Ended elsewhere a moment before (cancelled, or failed as stale): that record stands.
      const now = await this.records.find(request.runId);
      final = now?.state ?? null;
      events.emit(RunEventKind.State, null, `outcome ${state} not recorded: the run had already ended (${now?.state ?? 'deleted'}${now?.error ? `: ${now.error}` : ''})`);
      await events.flush();
    }
    if (final !== null) this.metrics.runFinished(request.pipeline, final, (performance.now() - startedAt) / 1000);
    this.logger.log(`run ${request.runId} (${request.project}/${request.ticket ?? '-'} ${request.pipeline}) ${result.ok ? 'succeeded' : `failed: ${error}`}`);
    return result.ok ? RunOutcome.Succeeded : RunOutcome.Failed;
  }
}
