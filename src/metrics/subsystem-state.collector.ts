import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { SUBSYSTEM_STATES } from '../store/subsystem.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import { METRIC_PREFIX, MetricsService } from './metrics.service.js';

/**
 * `subsystem_state{subsystem, state}`: for each background subsystem one series per state, 1 for
 * the state it is in and 0 for the others (so `== 1` selects the current one and a change of
 * state never leaves an old series behind). Read from memory at scrape time.
 */
@Injectable()
export class SubsystemStateCollector implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly subsystems: SubsystemsService,
  ) {}

  onModuleInit(): void {
    if (!this.metrics.enabled) return;
    const gauge: Gauge<'subsystem' | 'state'> = new Gauge({
      name: `${METRIC_PREFIX}subsystem_state`,
      help: 'Background subsystem state (as on /health): 1 for the current state, 0 for the others.',
      labelNames: ['subsystem', 'state'],
      registers: [this.metrics.registry],
      collect: () => {
        for (const status of this.subsystems.list()) {
          for (const state of SUBSYSTEM_STATES) gauge.set({ subsystem: status.name, state }, status.state === state ? 1 : 0);
        }
      },
    });
  }
}
