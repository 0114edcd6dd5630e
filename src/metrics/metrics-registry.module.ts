import { Module } from '@nestjs/common';
import { MetricsService } from './metrics.service.js';

/**
 * The registry and its event instruments, imported by each module that records (webhooks,
 * tickets, label projection, run engine), so any composition of them has it. One instance per
 * application. It depends on configuration only: the modules that record never depend on
 * MetricsModule, which reads them.
 */
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsRegistryModule {}
