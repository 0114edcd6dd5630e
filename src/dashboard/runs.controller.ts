import { BadRequestException, Controller, Get, NotFoundException, Param, Query, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import type { ErrorBody } from '../common/error-body.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from './api-error.filter.js';
import { RunReaderService, type RunPage } from '../runs/resource/run-reader.service.js';
import type { Run } from '../runs/resource/run-resource.js';
import { RunDto } from '../runs/resource/dto/run.dto.js';
import { ListRunsQuery } from './dto/list-runs.query.js';
import { RunEventPageDto } from './dto/run-event-page.dto.js';
import { RunEventsQuery } from './dto/run-events.query.js';
import { RunIdParams } from './dto/run-id.params.js';
import { RunPageDto } from './dto/run-page.dto.js';
import { RunStatisticsDto } from './dto/run-statistics.dto.js';
import { RunStatisticsSeriesDto } from './dto/run-statistics-series.dto.js';
import { StatisticsSeriesQuery } from './dto/statistics-series.query.js';
import { StatisticsQuery } from './dto/statistics.query.js';
import { type RunEventPage, RunEventsReader } from './run-events.reader.js';
import {
  BUCKET_MS, DEFAULT_RANGE_MS, MAX_BUCKETS, type RunStatisticsSeries, RunStatisticsSeriesService, StatisticsBucket,
} from './run-statistics-series.service.js';
import { type RunStatistics, RunStatisticsService } from './run-statistics.service.js';

/** Unknown run id: 404 `{error}` (contract "Runs API details"). */
export function runNotFound(id: string): NotFoundException {
  return new NotFoundException({ error: `no run ${id}` } satisfies ErrorBody);
}

function badQuery(error: string): BadRequestException {
  return new BadRequestException({ error } satisfies ErrorBody);
}

/** The run list, one run, its events and statistics (runs.read). */
@ApiTags('runs')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed or unknown parameter, named in `error`' })
@Controller('api/runs')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
export class RunsController {
  constructor(
    private readonly runs: RunReaderService,
    private readonly events: RunEventsReader,
    private readonly statistics: RunStatisticsService,
    private readonly series: RunStatisticsSeriesService,
  ) {}

  /** Newest first, filtered and paged: `{items, total}`. */
  @Get()
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({ summary: 'List runs', description: 'Newest first, filtered (all filters combine) and paged.' })
  @ApiOkResponse({ type: RunPageDto, description: 'a page of runs and the total' })
  list(@Query() query: ListRunsQuery): Promise<RunPage> {
    return this.runs.list({
      state: query.state, project: query.project, ticket: query.ticket, pipeline: query.pipeline, platform: query.platform,
      since: query.since === undefined ? undefined : new Date(query.since),
      until: query.until === undefined ? undefined : new Date(query.until),
    }, query.limit, query.offset);
  }

  @Get('statistics')
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({ summary: 'Run statistics', description: 'Counts, duration and queue-wait percentiles and summed usage of the runs selected.' })
  @ApiOkResponse({ type: RunStatisticsDto, description: 'the figures' })
  stats(@Query() query: StatisticsQuery): Promise<RunStatistics> {
    return this.statistics.compute({ project: query.project, since: query.since === undefined ? undefined : new Date(query.since) });
  }

  @Get('statistics/series')
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({
    summary: 'Run statistics over time',
    description: 'The statistics\' figures per UTC hour or day of createdAt, every bucket of the range present (the dashboard\'s charts).',
  })
  @ApiOkResponse({ type: RunStatisticsSeriesDto, description: 'one entry per bucket, oldest first' })
  statsSeries(@Query() query: StatisticsSeriesQuery): Promise<RunStatisticsSeries> {
    const bucket = query.bucket ?? StatisticsBucket.Day;
    const until = query.until === undefined ? new Date() : new Date(query.until);
    const since = query.since === undefined ? new Date(until.getTime() - DEFAULT_RANGE_MS[bucket]) : new Date(query.since);
    if (since.getTime() >= until.getTime()) throw badQuery('since must be before until');
    if ((until.getTime() - since.getTime()) / BUCKET_MS[bucket] > MAX_BUCKETS) {
      throw badQuery(`since is too far before until for bucket=${bucket}: at most ${MAX_BUCKETS} buckets`);
    }
    return this.series.compute({ bucket, since, until, project: query.project });
  }

  @Get(':id')
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({ summary: 'One run' })
  @ApiOkResponse({ type: RunDto, description: 'the run' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  async get(@Param() params: RunIdParams): Promise<Run> {
    const run = await this.runs.get(params.id);
    if (!run) throw runNotFound(params.id);
    return run;
  }

  /** The run's events with `seq` greater than `after`, in order. */
  @Get(':id/events')
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({ summary: 'A run\'s events', description: 'Events with `seq` greater than `after`, in order; page on with `nextAfter`.' })
  @ApiOkResponse({ type: RunEventPageDto, description: 'a page of events' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  async runEvents(@Param() params: RunIdParams, @Query() query: RunEventsQuery): Promise<RunEventPage> {
    const page = await this.events.page(params.id, query.after, query.limit);
    if (!page) throw runNotFound(params.id);
    return page;
  }
}
