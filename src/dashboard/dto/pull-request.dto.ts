import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { PullRequestState } from '../../runs/resource/run-resource.js';
import type { PullRequestView } from '../pull-requests.reader.js';

@ApiSchema({ name: 'PullRequest' })
export class PullRequestDto implements PullRequestView {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the run that opened it' }) runId: string | null;
  @ApiProperty() project: string;
  @ApiProperty({ type: String, nullable: true }) ticket: string | null;
  @ApiProperty() repo: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: 'integer' }) number: number;
  @ApiProperty({ enum: Object.values(PullRequestState) }) state: PullRequestState;
  @ApiProperty({ format: 'date-time' }) openedAt: string;
}
