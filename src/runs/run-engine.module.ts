import { Module } from '@nestjs/common';
import { RunCriteriaModule } from './criteria/run-criteria.module.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { LeaderModule } from '../leader/leader.module.js';
import { MetricsRegistryModule } from '../metrics/metrics-registry.module.js';
import { PipelinesModule } from '../pipelines/pipelines.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { RunChangesModule } from './changes/run-changes.module.js';
import { RunArtifactsModule } from './run-artifacts.module.js';
import { CapacityQueueService } from './capacity/capacity-queue.service.js';
import { RunControlChannel } from './control/run-control-channel.service.js';
import { RunStopWatcher } from './control/run-stop-watcher.service.js';
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
 * detector, reconciler and run retention), the live run feed and `run.changed`, and the watcher
 * that stops runs cancelled anywhere. Needs RunQueueModule and TicketsModule.
 */
@Module({
  imports: [RunCriteriaModule, LeaderModule, PipelinesModule, MetricsRegistryModule, RunChangesModule, WorkspacesModule, RunArtifactsModule, ConversationsModule],
  providers: [
    RunRecordsService, RunFeedPublisher, RunEventsService, HeartbeatService, CapacityQueueService,
    RunExecutorService, RunConsumerService, StaleJobDetectorService, ReconcilerService, RunRetentionService, HousekeepingService,
    RunControlChannel, RunStopWatcher,
  ],
  exports: [
    RunChangesModule, RunRecordsService, RunEventsService, RunFeedPublisher, CapacityQueueService, StaleJobDetectorService, ReconcilerService,
    RunControlChannel,
  ],
})
export class RunEngineModule {}
