import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { RunQueueService } from '../runs/run-queue.service.js';
import { GuardedReading } from './guarded-reading.js';
import { METRIC_PREFIX, MetricsService } from './metrics.service.js';
import { readingReport } from './metrics-reading-report.js';

/** BullMQ states counted; waiting + prioritized + delayed is the backlog, active is being worked on. */
const QUEUE_STATES = ['waiting', 'prioritized', 'delayed', 'active'] as const;

/**
 * `queue_depth{state}`: pipeline requests on the job queue, read from the store at each scrape
 * (BullMQ `getJobCounts`, at most 1 s). Without a store (no KVSTORE_URL) or when the reading
 * fails, the gauge has no samples in that scrape: an absent series, never a stale figure.
 */
@Injectable()
export class QueueDepthCollector implements OnModuleInit {
  private readonly logger = new Logger('Metrics');

  constructor(
    private readonly metrics: MetricsService,
    private readonly queue: RunQueueService,
  ) {}

  onModuleInit(): void {
    if (!this.metrics.enabled) return;
    const { queue } = this.queue;
    const guarded = new GuardedReading('queue_depth', readingReport('queue_depth', this.metrics, this.logger));
    const gauge: Gauge<'state'> = new Gauge({
      name: `${METRIC_PREFIX}queue_depth`,
      help: 'Pipeline requests on the job queue by BullMQ state (absent when the store cannot be read).',
      labelNames: ['state'],
      registers: [this.metrics.registry],
      collect: async () => {
        gauge.reset();
        if (!queue) return;
        const counts = await guarded.read(() => queue.getJobCounts(...QUEUE_STATES));
        if (counts) for (const state of QUEUE_STATES) gauge.set({ state }, counts[state] ?? 0);
      },
    });
  }
}
