import { Module } from '@nestjs/common';
import { MetricsRegistryModule } from '../metrics/metrics-registry.module.js';
import { DeliveryDedupeService } from './delivery-dedupe.service.js';
import { TriggerLogService } from './trigger-log.service.js';
import { WebhookController } from './webhook.controller.js';
import { WebhookService } from './webhook.service.js';

@Module({
  imports: [MetricsRegistryModule],
  controllers: [WebhookController],
  providers: [WebhookService, DeliveryDedupeService, TriggerLogService],
  exports: [TriggerLogService],
})
export class WebhooksModule {}
