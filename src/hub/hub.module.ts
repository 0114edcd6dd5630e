import { Module } from '@nestjs/common';
import { RunChangesModule } from '../runs/changes/run-changes.module.js';
import { HubFeedRelay } from './hub-feed.relay.js';
import { HubSessions } from './hub-sessions.js';
import { HubGuard } from './hub.guard.js';
import { JobsGateway } from './jobs.gateway.js';

@Module({ imports: [RunChangesModule], providers: [JobsGateway, HubGuard, HubFeedRelay, HubSessions] })
export class HubModule {}
