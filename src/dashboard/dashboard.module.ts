import { Module } from '@nestjs/common';
import { RunResourceModule } from '../runs/resource/run-resource.module.js';
import { PullRequestsController } from './pull-requests.controller.js';
import { PullRequestsReader } from './pull-requests.reader.js';
import { RunEventsReader } from './run-events.reader.js';
import { RunStatisticsService } from './run-statistics.service.js';
import { RunsController } from './runs.controller.js';

/** The guarded REST API for runs, their events, statistics and pull requests. */
@Module({
  imports: [RunResourceModule],
  controllers: [RunsController, PullRequestsController],
  providers: [RunEventsReader, RunStatisticsService, PullRequestsReader],
})
export class DashboardModule {}
