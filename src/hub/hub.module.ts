import { Module } from '@nestjs/common';
import { HubFeedRelay } from './hub-feed.relay.js';
import { HubSessions } from './hub-sessions.js';
import { HubGuard } from './hub.guard.js';
import { JobsGateway } from './jobs.gateway.js';

@Module({ providers: [JobsGateway, HubGuard, HubFeedRelay, HubSessions] })
export class HubModule {}
