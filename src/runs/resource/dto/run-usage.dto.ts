import { ApiProperty, ApiSchema } from '../../../common/api-docs.js';
import type { RunUsage } from '../run-resource.js';

/** Model usage; zeros for runs without a model. */
@ApiSchema({ name: 'RunUsage' })
export class RunUsageDto implements RunUsage {
  @ApiProperty({ type: 'integer', minimum: 0 }) modelCalls: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) inputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) outputTokens: number;
  @ApiProperty({ minimum: 0 }) costUsd: number;
}
