import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { MetricsRegistryModule } from '../../metrics/metrics-registry.module.js';
import { HostRateLimiter } from './host-rate-limiter.service.js';
import { HostRecoveryProbe } from './host-recovery.probe.js';
import { DEFAULT_LABEL_PROJECTION_OPTIONS, LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import { LabelProjectionService } from './label-projection.service.js';
import { LifecycleLabelWriter } from './lifecycle-label.writer.js';
import { ProjectionCatchUp } from './projection-catch-up.js';
import { ProjectionEventsRecorder } from './projection-events.recorder.js';
import { ProjectTrackerFactory } from './project-tracker.factory.js';
import { RunCommentPoster } from './run-comment.poster.js';
import { TicketCommentRecordsService } from './ticket-comment-records.service.js';
import { TicketStatusWriter } from './ticket-status.writer.js';

const SERVICES: Provider[] = [
  HostRateLimiter, HostRecoveryProbe, ProjectTrackerFactory, LifecycleLabelWriter, TicketCommentRecordsService,
  RunCommentPoster, TicketStatusWriter, ProjectionEventsRecorder, LabelProjectionService, ProjectionCatchUp,
];

/** Also for the poller (issue 17): its reads share the hosts' budgets, and its clients are built with the same options. */
const EXPORTS = [LabelProjectionService, HostRateLimiter, LABEL_PROJECTION_OPTIONS];

/**
 * Label projection (issue 5): mirrors ticket lifecycle transitions onto the trackers and posts
 * failure comments; ProjectionCatchUp catches up after a start. Needs TicketsModule (global)
 * and the core (config, store, database).
 */
@Module({
  imports: [MetricsRegistryModule],
  providers: [{ provide: LABEL_PROJECTION_OPTIONS, useValue: DEFAULT_LABEL_PROJECTION_OPTIONS }, ...SERVICES],
  exports: EXPORTS,
})
export class LabelProjectionModule {
  /** The module with some tunables changed (tests shorten timings and budgets). */
  static withOptions(overrides: Partial<LabelProjectionOptions>): DynamicModule {
    return {
      module: LabelProjectionModule,
      imports: [MetricsRegistryModule],
      providers: [{ provide: LABEL_PROJECTION_OPTIONS, useValue: { ...DEFAULT_LABEL_PROJECTION_OPTIONS, ...overrides } }, ...SERVICES],
      exports: EXPORTS,
    };
  }
}
