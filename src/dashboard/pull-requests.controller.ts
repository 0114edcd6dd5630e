import { Controller, Get, Query, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { requestValidation } from '../common/request-validation.js';
import { ListPullRequestsQuery } from './dto/list-pull-requests.query.js';
import { type PullRequestView, PullRequestsReader } from './pull-requests.reader.js';

/** Pull requests the service opened, newest first (runs.read). */
@Controller('api/pull-requests')
@UsePipes(requestValidation)
export class PullRequestsController {
  constructor(private readonly pullRequests: PullRequestsReader) {}

  @Get()
  @RequirePermissions(Permission.RunsRead)
  list(@Query() query: ListPullRequestsQuery): Promise<{ items: PullRequestView[]; total: number }> {
    return this.pullRequests.list({ project: query.project, state: query.state }, query.limit, query.offset);
  }
}
