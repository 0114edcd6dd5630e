import { Module } from '@nestjs/common';
import { ConversationsModule } from '../../conversations/conversations.module.js';
import { MetricsRegistryModule } from '../../metrics/metrics-registry.module.js';
import { RunResourceModule } from '../resource/run-resource.module.js';
import { RunEngineModule } from '../run-engine.module.js';
import { RunControlService } from './run-control.service.js';
import { RunDeletionService } from './run-deletion.service.js';

/** Cancel, retry and delete runs (the dashboard's run control). The engine stops cancelled runs itself (RunStopWatcher). */
@Module({
  imports: [RunEngineModule, RunResourceModule, MetricsRegistryModule, ConversationsModule],
  providers: [RunControlService, RunDeletionService],
  exports: [RunControlService, RunDeletionService],
})
export class RunControlModule {}
