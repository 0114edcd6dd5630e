import { Controller, Get, NotFoundException, Param, Query, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { requestValidation } from '../common/request-validation.js';
import { RunReaderService, type RunPage } from '../runs/resource/run-reader.service.js';
import type { Run } from '../runs/resource/run-resource.js';
import { ListRunsQuery } from './dto/list-runs.query.js';
import { RunEventsQuery } from './dto/run-events.query.js';
import { RunIdParams } from './dto/run-id.params.js';
import { StatisticsQuery } from './dto/statistics.query.js';
import { type RunEventPage, RunEventsReader } from './run-events.reader.js';
import { type RunStatistics, RunStatisticsService } from './run-statistics.service.js';

/** Unknown run id: 404 `{error}` (contract "Runs API details"). */
export function runNotFound(id: string): NotFoundException {
  return new NotFoundException({ error: `no run ${id}` });
}

/** The run list, one run, its events and statistics (runs.read). */
@Controller('api/runs')
@UsePipes(requestValidation)
export class RunsController {
  constructor(
    private readonly runs: RunReaderService,
    private readonly events: RunEventsReader,
    private readonly statistics: RunStatisticsService,
  ) {}

  /** Newest first, filtered and paged: `{items, total}`. */
  @Get()
  @RequirePermissions(Permission.RunsRead)
  list(@Query() query: ListRunsQuery): Promise<RunPage> {
    return this.runs.list({
      state: query.state, project: query.project, ticket: query.ticket, pipeline: query.pipeline, platform: query.platform,
      since: query.since === undefined ? undefined : new Date(query.since),
      until: query.until === undefined ? undefined : new Date(query.until),
    }, query.limit, query.offset);
  }

  @Get('statistics')
  @RequirePermissions(Permission.RunsRead)
  stats(@Query() query: StatisticsQuery): Promise<RunStatistics> {
    return this.statistics.compute({ project: query.project, since: query.since === undefined ? undefined : new Date(query.since) });
  }

  @Get(':id')
  @RequirePermissions(Permission.RunsRead)
  async get(@Param() params: RunIdParams): Promise<Run> {
    const run = await this.runs.get(params.id);
    if (!run) throw runNotFound(params.id);
    return run;
  }

  /** The run's events with `seq` greater than `after`, in order. */
  @Get(':id/events')
  @RequirePermissions(Permission.RunsRead)
  async runEvents(@Param() params: RunIdParams, @Query() query: RunEventsQuery): Promise<RunEventPage> {
    const page = await this.events.page(params.id, query.after, query.limit);
    if (!page) throw runNotFound(params.id);
    return page;
  }
}
