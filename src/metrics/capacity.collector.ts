import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import type { Footprint } from '../runs/capacity/footprint.js';
import { CapacityQueueService } from '../runs/capacity/capacity-queue.service.js';
import { capacityReadings } from './capacity-readings.js';
import { GuardedReading } from './guarded-reading.js';
import { METRIC_PREFIX, MetricsService } from './metrics.service.js';
import { readingReport } from './metrics-reading-report.js';

/**
 * `capacity_cpu_cores{state}` and `capacity_memory_bytes{state}`, `state` = `in_use` | `free`:
 * what admitted live runs hold (from the database, at most 1 s per scrape) and what `capacity:`
 * leaves. An unbounded dimension has no `free` series. When the database cannot be read both
 * gauges have no samples in that scrape.
 */
@Injectable()
export class CapacityCollector implements OnModuleInit {
  private readonly logger = new Logger('Metrics');
  /** The reading under way: both gauges are collected in one scrape from one query. */
  private pending: Promise<Footprint | null> | null = null;
  private guarded: GuardedReading;

  constructor(
    private readonly metrics: MetricsService,
    private readonly capacity: CapacityQueueService,
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
  ) {}

  onModuleInit(): void {
    if (!this.metrics.enabled) return;
    this.guarded = new GuardedReading('capacity', readingReport('capacity', this.metrics, this.logger));
    this.gauge('cpu_cores', 'Capacity cores held by admitted live runs (in_use) and left (free; absent when unbounded).', 'cpu');
    this.gauge('memory_bytes', 'Capacity memory held by admitted live runs (in_use) and left (free; absent when unbounded).', 'memory');
  }

  private gauge(unit: string, help: string, dimension: 'cpu' | 'memory'): void {
    const gauge: Gauge<'state'> = new Gauge({
      name: `${METRIC_PREFIX}capacity_${unit}`,
      help,
      labelNames: ['state'],
      registers: [this.metrics.registry],
      collect: async () => {
        gauge.reset();
        const inUse = await this.inUse();
        if (!inUse) return;
        const reading = capacityReadings(this.config.config.capacity, inUse)[dimension];
        gauge.set({ state: 'in_use' }, reading.inUse);
        if (reading.free !== undefined) gauge.set({ state: 'free' }, reading.free);
      },
    });
  }

  private inUse(): Promise<Footprint | null> {
    this.pending ??= this.guarded.read(() => {
      if (!this.db.isReady) throw new Error('the database is not ready');
      return this.capacity.inUse();
    }).finally(() => {
      this.pending = null;
    });
    return this.pending;
  }
}
