import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { ReadinessResponse } from '../health-responses.js';
import { SubsystemStatusDto } from './subsystem-status.dto.js';

@ApiSchema({ name: 'ReadinessResponse' })
export class ReadinessResponseDto implements ReadinessResponse {
  @ApiProperty({ enum: ['ready', 'not_ready'] }) status: 'ready' | 'not_ready';
  @ApiProperty({ type: [SubsystemStatusDto] }) subsystems: SubsystemStatusDto[];
}
