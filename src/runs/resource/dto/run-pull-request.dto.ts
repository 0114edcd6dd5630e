import { ApiProperty, ApiSchema } from '../../../common/api-docs.js';
import { PullRequestState, type RunPullRequestView } from '../run-resource.js';

@ApiSchema({ name: 'RunPullRequest' })
export class RunPullRequestDto implements RunPullRequestView {
  @ApiProperty({ example: 'web' }) repo: string;
  @ApiProperty({ example: 'https://github.com/acme/web/pull/7' }) url: string;
  @ApiProperty({ type: 'integer', example: 7 }) number: number;
  @ApiProperty({ enum: Object.values(PullRequestState) }) state: PullRequestState;
}
