import { Module } from '@nestjs/common';
import { MetricsRegistryModule } from '../../metrics/metrics-registry.module.js';
import { RunResourceModule } from '../../runs/resource/run-resource.module.js';
import { RunEngineModule } from '../../runs/run-engine.module.js';
import { WorkspacesModule } from '../../workspaces/workspaces.module.js';
import { ConversationsModule } from '../conversations.module.js';
import { ReworkModule } from '../rework/rework.module.js';
import { HandBackAnswers } from './hand-back-answers.service.js';
import { HandBackPullRequestNotifier } from './hand-back-pull-requests.notifier.js';

/**
 * Hand-backs of parked runs: answers that resume them (dashboard, ticket comments, pull-request
 * replies) and the notes posted on the ticket's service pull requests (found as a run finds them,
 * ReworkModule). Needs TicketsModule (global) and the run queue (the answer's claim).
 */
@Module({
  imports: [ConversationsModule, ReworkModule, RunEngineModule, RunResourceModule, MetricsRegistryModule, WorkspacesModule],
  providers: [HandBackAnswers, HandBackPullRequestNotifier],
  exports: [HandBackAnswers],
})
export class HandBackModule {}
