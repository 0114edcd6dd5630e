import { IsIn, IsOptional } from 'class-validator';
import { ApiPropertyOptional } from '../../common/api-docs.js';
import { PullRequestState } from '../../runs/resource/run-resource.js';
import { PageQuery, TextFilter } from './page.query.js';

const PR_STATES = Object.values(PullRequestState);

/** Query of `GET /api/pull-requests`. */
export class ListPullRequestsQuery extends PageQuery {
  @TextFilter('project', 'project name')
  project?: string;

  @ApiPropertyOptional({ enum: PR_STATES })
  @IsOptional() @IsIn(PR_STATES, { message: `state must be one of ${PR_STATES.join(', ')}` })
  state?: PullRequestState;
}
