import { Module } from '@nestjs/common';
import { HubFeedRelay } from './hub-feed.relay.js';
import { HubGuard } from './hub.guard.js';
import { JobsGateway } from './jobs.gateway.js';

@Module({ providers: [JobsGateway, HubGuard, HubFeedRelay] })
export class HubModule {}
