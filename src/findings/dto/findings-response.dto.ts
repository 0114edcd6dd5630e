import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { FindingsResponse } from '../findings.service.js';
import { FindingDto } from './finding.dto.js';

@ApiSchema({ name: 'FindingsResponse' })
export class FindingsResponseDto implements FindingsResponse {
  @ApiProperty({ description: 'true while a blocking finding stands' }) degraded: boolean;
  @ApiProperty({ type: 'integer' }) blocking: number;
  @ApiProperty({ type: 'integer' }) advisory: number;
  @ApiProperty({ type: [FindingDto] }) findings: FindingDto[];
}
