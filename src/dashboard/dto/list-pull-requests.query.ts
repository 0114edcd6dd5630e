import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ToInteger } from '../../common/request-validation.js';
import { PullRequestState } from '../../runs/resource/run-resource.js';
import { MAX_RUN_PAGE } from './list-runs.query.js';

const PR_STATES = Object.values(PullRequestState);

/** Query of `GET /api/pull-requests`. */
export class ListPullRequestsQuery {
  @ApiPropertyOptional({ description: 'project name' })
  @IsOptional() @IsString({ message: 'project must be given once' }) @Length(1, 200, { message: 'project must be 1 to 200 characters' })
  project?: string;

  @ApiPropertyOptional({ enum: PR_STATES })
  @IsOptional() @IsIn(PR_STATES, { message: `state must be one of ${PR_STATES.join(', ')}` })
  state?: PullRequestState;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_RUN_PAGE, default: 50 })
  @IsOptional() @ToInteger() @IsInt({ message: `limit must be an integer from 1 to ${MAX_RUN_PAGE}` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_RUN_PAGE}` }) @Max(MAX_RUN_PAGE, { message: `limit must be an integer from 1 to ${MAX_RUN_PAGE}` })
  limit: number = 50;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional() @ToInteger() @IsInt({ message: 'offset must be a non-negative integer' }) @Min(0, { message: 'offset must be a non-negative integer' })
  offset: number = 0;
}
