import { ApiProperty, ApiSchema } from '../../../common/api-docs.js';
import { StepState } from '../../../pipelines/pipeline.js';
import type { RunStepView } from '../run-resource.js';

@ApiSchema({ name: 'RunStep' })
export class RunStepDto implements RunStepView {
  @ApiProperty({ example: 'npm test' }) name: string;
  @ApiProperty({ enum: Object.values(StepState) }) state: StepState;
  @ApiProperty({ format: 'date-time' }) startedAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finishedAt: string | null;
}
