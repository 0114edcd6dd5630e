import { IsIn } from 'class-validator';
import { ApiProperty } from '../../common/api-docs.js';

/** Query of `DELETE /api/runs`: `finished=true` is required, so a bare DELETE never clears anything by accident. */
export class ClearRunsQuery {
  @ApiProperty({ enum: ['true'], description: 'must be true: every ended (succeeded, failed or cancelled) run is deleted' })
  @IsIn(['true'], { message: 'finished must be true (only finished runs are cleared; live runs are cancelled first)' })
  finished!: 'true';
}
