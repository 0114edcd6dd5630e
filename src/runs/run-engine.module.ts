import { Module } from '@nestjs/common';
import { LeaderModule } from '../leader/leader.module.js';
import { PipelinesModule } from '../pipelines/pipelines.module.js';
import { RunChangesModule } from './changes/run-changes.module.js';
import { CapacityQueueService } from './capacity/capacity-queue.service.js';
import { HeartbeatService } from './heartbeat.service.js';
import { HousekeepingService } from './housekeeping.service.js';
import { ReconcilerService } from './reconciler.service.js';
import { RunConsumerService } from './run-consumer.service.js';
import { RunEventsService } from './run-events.service.js';
import { RunExecutorService } from './run-executor.service.js';
import { RunFeedPublisher } from './run-feed.publisher.js';
import { RunRecordsService } from './run-records.service.js';
import { RunRetentionService } from './run-retention.service.js';
import { StaleJobDetectorService } from './stale-job-detector.service.js';

/**
 * The run engine: consumer, executor, capacity queue, heartbeats, housekeeping (stale-job
 * detector, reconciler and run retention), the live run feed and `run.changed`. Needs
 * RunQueueModule and TicketsModule.
 */
@Module({
  imports: [LeaderModule, PipelinesModule, RunChangesModule],
  providers: [
    RunRecordsService, RunFeedPublisher, RunEventsService, HeartbeatService, CapacityQueueService,
    RunExecutorService, RunConsumerService, StaleJobDetectorService, ReconcilerService, RunRetentionService, HousekeepingService,
  ],
  exports: [RunChangesModule, RunRecordsService, RunEventsService, RunFeedPublisher, CapacityQueueService, StaleJobDetectorService, ReconcilerService],
})
export class RunEngineModule {}
