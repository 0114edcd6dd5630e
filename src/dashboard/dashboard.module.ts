import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { HandBackModule } from '../conversations/hand-back/hand-back.module.js';
import { RunEngineModule } from '../runs/run-engine.module.js';
import { RunCriteriaModule } from '../runs/criteria/run-criteria.module.js';
import { RunCriteriaController } from './run-criteria.controller.js';
import { RunControlModule } from '../runs/control/run-control.module.js';
import { RunResourceModule } from '../runs/resource/run-resource.module.js';
import { RunArtifactsModule } from '../runs/run-artifacts.module.js';
import { PullRequestsController } from './pull-requests.controller.js';
import { PullRequestsReader } from './pull-requests.reader.js';
import { RunArtifactsController } from './run-artifacts.controller.js';
import { RunControlController } from './run-control.controller.js';
import { RunQuestionController } from './run-question.controller.js';
import { RunEventsReader } from './run-events.reader.js';
import { RunStatisticsSeriesService } from './run-statistics-series.service.js';
import { RunStatisticsService } from './run-statistics.service.js';
import { RunsController } from './runs.controller.js';

/** The guarded REST API for runs, their events, artifacts, statistics and pull requests, run control and a parked run's question. */
@Module({
  imports: [RunCriteriaModule, RunEngineModule, ConversationsModule, RunResourceModule, RunControlModule, RunArtifactsModule, HandBackModule],
  controllers: [RunsController, RunArtifactsController, RunControlController, RunQuestionController, RunCriteriaController, PullRequestsController],
  providers: [RunEventsReader, RunStatisticsService, RunStatisticsSeriesService, PullRequestsReader],
})
export class DashboardModule {}
