import { Global, Module } from '@nestjs/common';
import { ClaimService } from './claim.service.js';
import { TicketLifecycleService } from './ticket-lifecycle.service.js';

@Global()
@Module({ providers: [TicketLifecycleService, ClaimService], exports: [TicketLifecycleService, ClaimService] })
export class TicketsModule {}
