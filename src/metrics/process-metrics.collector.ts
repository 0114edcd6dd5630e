import { Injectable, type OnModuleInit } from '@nestjs/common';
import { collectDefaultMetrics } from 'prom-client';
import { MetricsService } from './metrics.service.js';

/**
 * Node's process metrics (`process_*`, `nodejs_*`: CPU, memory, heap, event-loop lag, GC,
 * handles, file descriptors) on this application's registry. They keep prom-client's standard
 * names, unprefixed, so that the usual Node.js dashboards and alerts work unchanged.
 */
@Injectable()
export class ProcessMetricsCollector implements OnModuleInit {
  constructor(private readonly metrics: MetricsService) {}

  onModuleInit(): void {
    if (this.metrics.enabled) collectDefaultMetrics({ register: this.metrics.registry });
  }
}
