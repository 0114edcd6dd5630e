import { Module } from '@nestjs/common';
import { InMemoryProviderGate, type ProviderGate, requestsPerMinuteFrom } from '../agent/provider-gate.js';
import { RedisProviderGate } from '../agent/redis-provider-gate.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ConfigService } from '../config/config.service.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { DEFAULT_LABEL_PROJECTION_OPTIONS, LABEL_PROJECTION_OPTIONS } from '../tickets/label-projection/label-projection.options.js';
import { ProjectTrackerFactory } from '../tickets/label-projection/project-tracker.factory.js';
import { PipelineCatalogService } from './pipeline-catalog.service.js';
import { PROVIDER_GATE } from './pipeline.tokens.js';
import { StepRunner } from './step-runner.js';

/**
 * Calls to one provider endpoint are spaced across the installation (every replica shares the
 * store's schedule); without a store, this process's own schedule does it.
 */
function providerGate(config: ConfigService, store: StoreConnectionService): ProviderGate {
  const rate = requestsPerMinuteFrom(() => config.config);
  return store.client ? new RedisProviderGate(store.client, rate, { keyPrefix: store.keyPrefix }) : new InMemoryProviderGate(rate);
}

// Its own tracker factory (reads the ticket's text for the model): the label projection's stays private to it.
@Module({
  imports: [ConversationsModule, CatalogModule],
  providers: [
    PipelineCatalogService,
    { provide: StepRunner, useValue: new StepRunner() },
    { provide: LABEL_PROJECTION_OPTIONS, useValue: DEFAULT_LABEL_PROJECTION_OPTIONS },
    ProjectTrackerFactory,
    { provide: PROVIDER_GATE, useFactory: providerGate, inject: [ConfigService, StoreConnectionService] },
  ],
  exports: [PipelineCatalogService, StepRunner, PROVIDER_GATE],
})
export class PipelinesModule {}
