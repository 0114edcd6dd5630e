import { Controller, Get, Query, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from './api-error.filter.js';
import { ListPullRequestsQuery } from './dto/list-pull-requests.query.js';
import { PullRequestPageDto } from './dto/pull-request-page.dto.js';
import { type PullRequestPage, PullRequestsReader } from './pull-requests.reader.js';

/** Pull requests the service opened, newest first (runs.read). */
@ApiTags('pull requests')
@Controller('api/pull-requests')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
export class PullRequestsController {
  constructor(private readonly pullRequests: PullRequestsReader) {}

  @Get()
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({ summary: 'List pull requests', description: 'Pull requests the service opened, newest first.' })
  @ApiOkResponse({ type: PullRequestPageDto, description: 'a page of pull requests and the total' })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed or unknown parameter, named in `error`' })
  list(@Query() query: ListPullRequestsQuery): Promise<PullRequestPage> {
    return this.pullRequests.list({ project: query.project, state: query.state }, query.limit, query.offset);
  }
}
