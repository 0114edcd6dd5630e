import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { PreflightReport } from '../preflight.js';
import { PreflightFailureDto } from './preflight-failure.dto.js';

@ApiSchema({ name: 'PreflightReport' })
export class PreflightReportDto implements PreflightReport {
  @ApiProperty({ enum: ['pending', 'pass', 'fail'], description: '`pending` until the startup checks finish' }) status: 'pending' | 'pass' | 'fail';
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at_utc: string | null;
  @ApiProperty({ type: 'integer' }) passed: number;
  @ApiProperty({ type: 'integer' }) failed: number;
  @ApiProperty({ type: 'integer' }) skipped: number;
  @ApiProperty({ type: [PreflightFailureDto] }) failures: PreflightFailureDto[];
}
