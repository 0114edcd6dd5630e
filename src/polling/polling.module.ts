import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { LeaderModule } from '../leader/leader.module.js';
import { LabelProjectionModule } from '../tickets/label-projection/label-projection.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { PollClaims } from './poll-claims.service.js';
import { PollCursorsService } from './poll-cursors.service.js';
import { PollCycleService } from './poll-cycle.service.js';
import { PollTargetsService } from './poll-targets.service.js';
import { PollerService } from './poller.service.js';
import { DEFAULT_POLLING_OPTIONS, POLLING_OPTIONS, type PollingOptions } from './polling.options.js';
import { TicketRecordsService } from './ticket-records.service.js';

const SERVICES: Provider[] = [PollerService, PollCycleService, PollClaims, PollCursorsService, PollTargetsService, TicketRecordsService];
/** The tracker clients and host budgets (label projection), the claim (tickets, global) and the trigger log (webhooks). */
const IMPORTS = [LeaderModule, LabelProjectionModule, WebhooksModule];

/** Polling ingress (issue 17): the leader-elected poller. */
@Module({
  imports: IMPORTS,
  providers: [{ provide: POLLING_OPTIONS, useValue: DEFAULT_POLLING_OPTIONS }, ...SERVICES],
  exports: [PollerService],
})
export class PollingModule {
  /** The module with some tunables changed (tests shorten the interval and the back-off). */
  static withOptions(overrides: Partial<PollingOptions>): DynamicModule {
    return {
      module: PollingModule,
      imports: IMPORTS,
      providers: [{ provide: POLLING_OPTIONS, useValue: { ...DEFAULT_POLLING_OPTIONS, ...overrides } }, ...SERVICES],
      exports: [PollerService],
    };
  }
}
