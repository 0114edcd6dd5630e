import { Module } from '@nestjs/common';
import { CommandsModule } from '../commands/commands.module.js';
import { HandBackModule } from '../conversations/hand-back/hand-back.module.js';
import { MetricsRegistryModule } from '../metrics/metrics-registry.module.js';
import { PullRequestRunsModule } from '../runs/pull-request-runs.module.js';
import { DeliveryDedupeService } from './delivery-dedupe.service.js';
import { TicketAnswerIntake } from './ticket-answer.intake.js';
import { TriggerLogService } from './trigger-log.service.js';
import { WebhookController } from './webhook.controller.js';
import { WebhookService } from './webhook.service.js';

@Module({
  imports: [MetricsRegistryModule, PullRequestRunsModule, HandBackModule, CommandsModule],
  controllers: [WebhookController],
  providers: [WebhookService, DeliveryDedupeService, TriggerLogService, TicketAnswerIntake],
  exports: [TriggerLogService],
})
export class WebhooksModule {}
