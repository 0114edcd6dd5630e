import { ApiProperty, ApiSchema } from '../../../common/api-docs.js';
import type { RunTargetView } from '../run-resource.js';

/** The pull request a ticket-less run works on. */
@ApiSchema({ name: 'RunTarget' })
export class RunTargetDto implements RunTargetView {
  @ApiProperty({ description: "the repository's name in the project" }) repo: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'pull request number (GitLab iid)' }) number: number;
}
