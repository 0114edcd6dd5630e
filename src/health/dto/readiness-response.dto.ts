import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ReadinessResponse } from '../health-responses.js';
import { SubsystemStatusDto } from './subsystem-status.dto.js';

@ApiSchema({ name: 'ReadinessResponse' })
export class ReadinessResponseDto implements ReadinessResponse {
  @ApiProperty({ enum: ['ready', 'not_ready'] }) status: 'ready' | 'not_ready';
  @ApiProperty({ type: [SubsystemStatusDto] }) subsystems: SubsystemStatusDto[];
}
