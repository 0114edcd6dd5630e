import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { RunDto } from '../../runs/resource/dto/run.dto.js';
import type { Run } from '../../runs/resource/run-resource.js';

/** The answer of cancel (the run, now `cancelled`), and of answer and retry (the new run). */
@ApiSchema({ name: 'RunEnvelope' })
export class RunEnvelopeDto {
  @ApiProperty({ type: RunDto }) run: Run;
}

/** The answer of `DELETE /api/runs?finished=true`. */
@ApiSchema({ name: 'DeletedCount' })
export class DeletedCountDto {
  @ApiProperty({ description: 'how many finished runs were deleted', example: 12 }) deleted: number;
}
