import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { type Finding, FindingSubsystem, type Severity } from '../finding.js';

@ApiSchema({ name: 'Finding' })
export class FindingDto implements Finding {
  @ApiProperty({ enum: Object.values(FindingSubsystem) }) subsystem: FindingSubsystem;
  @ApiProperty({ enum: ['blocking', 'advisory'] }) severity: Severity;
  @ApiProperty() reason: string;
  @ApiProperty({ type: String, nullable: true }) project: string | null;
  @ApiProperty({ type: String, nullable: true }) trigger: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the setting at fault (file key or environment variable)' }) field: string | null;
}
