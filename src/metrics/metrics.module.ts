import { Module } from '@nestjs/common';
import { RunEngineModule } from '../runs/run-engine.module.js';
import { CapacityCollector } from './capacity.collector.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsRegistryModule } from './metrics-registry.module.js';
import { ProcessMetricsCollector } from './process-metrics.collector.js';
import { QueueDepthCollector } from './queue-depth.collector.js';
import { SubsystemStateCollector } from './subsystem-state.collector.js';
import { TransitionMetricsListener } from './transition-metrics.listener.js';

/**
 * `GET /metrics` and the collectors read at scrape time (subsystem states, queue depth,
 * capacity, process metrics) or fed by a listener (lifecycle transitions). Needs the run
 * engine (capacity), the job queue and the tickets module (both global).
 */
@Module({
  imports: [MetricsRegistryModule, RunEngineModule],
  controllers: [MetricsController],
  providers: [SubsystemStateCollector, QueueDepthCollector, CapacityCollector, ProcessMetricsCollector, TransitionMetricsListener],
})
export class MetricsModule {}
