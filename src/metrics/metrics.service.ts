import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { ConfigService } from '../config/config.service.js';
import type { DeliveryOutcome } from '../webhooks/delivery-outcome.js';
import { pipelineLabel, platformLabel } from './metric-labels.js';

export const METRIC_PREFIX = 'pipeline_service_';

/** A claim is a store lock, one statement and a queue push: milliseconds, seconds when something is slow. */
const CLAIM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Claim → start: milliseconds on an idle installation, up to hours behind a full capacity queue. */
const QUEUE_WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200];
/** Start → end: a command pipeline takes seconds to minutes, an agent run up to hours. */
const RUN_DURATION_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];

/**
 * The application's Prometheus registry (one per application instance: tests boot several in
 * one process, so the global default registry is never used) and the instruments fed where the
 * events happen. Recording is synchronous and in memory, cheap enough for the webhook path.
 * With `metrics.enabled: false` (read at boot, like the other bootstrap settings) every
 * recording returns at once and nothing is collected.
 *
 * Every label value is a bounded set (platform, outcome, state, configured pipeline name):
 * never a ticket id, title, delivery id, URL or secret.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly enabled: boolean;

  private readonly deliveries = this.counter('webhook_deliveries_total', 'Webhook deliveries by platform and outcome (as in the trigger log).', ['platform', 'outcome']);
  private readonly claims = this.counter('claims_total', 'Claims decided, by outcome (Rejected deliveries never reach a claim: see webhook_deliveries_total).', ['outcome']);
  private readonly claimSeconds = new Histogram({
    name: `${METRIC_PREFIX}claim_duration_seconds`, help: 'Time a claim took (lock, database, queue push).', buckets: CLAIM_BUCKETS, registers: [this.registry],
  });
  private readonly transitions = this.counter('ticket_transitions_total', 'Committed ticket lifecycle transitions.', ['from', 'to']);
  private readonly labelWrites = this.counter('label_writes_total', 'Lifecycle label writes to trackers, by platform and result.', ['platform', 'result']);
  private readonly runsStarted = this.counter('runs_started_total', 'Runs started (queued → running), by pipeline.', ['pipeline']);
  private readonly runsFinished = this.counter('runs_finished_total', 'Runs this instance ended, by pipeline and final state.', ['pipeline', 'state']);
  private readonly queueWait = new Histogram({
    name: `${METRIC_PREFIX}run_queue_wait_seconds`, help: 'Claim (run createdAt) → start of each run started here.', buckets: QUEUE_WAIT_BUCKETS, registers: [this.registry],
  });
  private readonly runSeconds = new Histogram({
    name: `${METRIC_PREFIX}run_duration_seconds`, help: 'Start → end of each run ended here, by pipeline and final state.',
    labelNames: ['pipeline', 'state'], buckets: RUN_DURATION_BUCKETS, registers: [this.registry],
  });
  /** Scrape-time readings under way (see `readingStarted`). */
  private readonly readings = new Set<Promise<unknown>>();
  private readonly collectionFailures = new Counter({
    name: `${METRIC_PREFIX}metrics_collection_failures_total`,
    help: 'Scrape-time readings (queue depth, capacity) that failed or timed out; their gauges are left out of that scrape.',
    labelNames: ['collector'],
    registers: [this.registry],
    // A scrape starts every collector at once: once they have all started (one turn later), wait
    // for their readings, so this scrape's own failures are in this scrape's count.
    collect: async () => {
      await Promise.resolve();
      await Promise.allSettled([...this.readings]);
    },
  });

  constructor(private readonly config: ConfigService) {
    this.enabled = config.config.metrics.enabled;
  }

  deliveryReceived(platform: string | null, outcome: DeliveryOutcome): void {
    if (this.enabled) this.deliveries.inc({ platform: platformLabel(platform), outcome });
  }

  /** `outcome`: a ClaimOutcome's, or `StoreUnavailable` when the store refused the claim. */
  claimDecided(outcome: 'Claimed' | 'AlreadyClaimed' | 'Failed' | 'StoreUnavailable', seconds: number): void {
    if (!this.enabled) return;
    this.claims.inc({ outcome });
    this.claimSeconds.observe(seconds);
  }

  /** Ticket states (TicketState values). */
  transitioned(from: string, to: string): void {
    if (this.enabled) this.transitions.inc({ from, to });
  }

  /** `result`: a LabelWriteResult outcome (`Updated`, `Unchanged`, `PreconditionFailed`) or `Error`. */
  labelWritten(platform: string, result: 'Updated' | 'Unchanged' | 'PreconditionFailed' | 'Error'): void {
    if (this.enabled) this.labelWrites.inc({ platform: platformLabel(platform), result });
  }

  runStarted(pipeline: string, queueWaitSeconds: number): void {
    if (!this.enabled) return;
    this.runsStarted.inc({ pipeline: this.pipeline(pipeline) });
    this.queueWait.observe(Math.max(0, queueWaitSeconds)); // the run's createdAt is the database's clock
  }

  /**
   * `state`: the run's final RunState. `durationSeconds` is null for a run that ended without
   * starting (cancelled while queued or parked): counted, with no duration to observe.
   */
  runFinished(pipeline: string, state: string, durationSeconds: number | null): void {
    if (!this.enabled) return;
    const labels = { pipeline: this.pipeline(pipeline), state };
    this.runsFinished.inc(labels);
    if (durationSeconds !== null) this.runSeconds.observe(labels, Math.max(0, durationSeconds));
  }

  /** A scrape-time reading started; the failure count is read after it settles. */
  readingStarted(reading: Promise<unknown>): void {
    this.readings.add(reading);
    const done = (): void => {
      this.readings.delete(reading);
    };
    reading.then(done, done);
  }

  collectionFailed(collector: string): void {
    if (this.enabled) this.collectionFailures.inc({ collector });
  }

  private pipeline(name: string): string {
    return pipelineLabel(name, this.config.config.pipelines);
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [this.registry] });
  }
}
