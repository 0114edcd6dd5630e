import { Module } from '@nestjs/common';
import { MetricsRegistryModule } from '../metrics/metrics-registry.module.js';
import { RunChangesModule } from '../runs/changes/run-changes.module.js';
import { PullRequestRunsService } from '../runs/pull-request-runs.service.js';
import { DeliveryDedupeService } from './delivery-dedupe.service.js';
import { TriggerLogService } from './trigger-log.service.js';
import { WebhookController } from './webhook.controller.js';
import { WebhookService } from './webhook.service.js';

@Module({
  imports: [MetricsRegistryModule, RunChangesModule],
  controllers: [WebhookController],
  providers: [WebhookService, DeliveryDedupeService, TriggerLogService, PullRequestRunsService],
  exports: [TriggerLogService],
})
export class WebhooksModule {}
