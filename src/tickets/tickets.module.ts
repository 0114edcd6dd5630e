import { Global, Module } from '@nestjs/common';
import { MetricsRegistryModule } from '../metrics/metrics-registry.module.js';
import { ClaimService } from './claim.service.js';
import { TicketLifecycleService } from './ticket-lifecycle.service.js';

@Global()
@Module({ imports: [MetricsRegistryModule], providers: [TicketLifecycleService, ClaimService], exports: [TicketLifecycleService, ClaimService] })
export class TicketsModule {}
