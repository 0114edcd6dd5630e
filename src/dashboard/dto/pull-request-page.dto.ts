import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { PullRequestPage } from '../pull-requests.reader.js';
import { PullRequestDto } from './pull-request.dto.js';

@ApiSchema({ name: 'PullRequestPage' })
export class PullRequestPageDto implements PullRequestPage {
  @ApiProperty({ type: [PullRequestDto], description: 'newest first' }) items: PullRequestDto[];
  @ApiProperty({ type: 'integer' }) total: number;
}
