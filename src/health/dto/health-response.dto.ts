import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { HealthResponse } from '../health-responses.js';
import { PreflightReportDto } from './preflight-report.dto.js';
import { SubsystemStatusDto } from './subsystem-status.dto.js';

@ApiSchema({ name: 'HealthResponse' })
export class HealthResponseDto implements HealthResponse {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status: 'ok' | 'degraded';
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty({ type: PreflightReportDto }) preflight: PreflightReportDto;
  @ApiProperty({ type: [SubsystemStatusDto] }) subsystems: SubsystemStatusDto[];
}
