import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { RunArtifactSummary } from '../../runs/run-artifacts.service.js';

@ApiSchema({ name: 'RunArtifact' })
export class RunArtifactDto implements RunArtifactSummary {
  @ApiProperty({ example: 'report.sarif', description: 'unique within the run; the download\'s file name' }) name: string;
  @ApiProperty({ example: 'application/sarif+json', description: 'the Content-Type the artifact is served with' }) mediaType: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'size of the content in bytes (UTF-8)' }) sizeBytes: number;
  @ApiProperty({ format: 'date-time', description: 'when this content was saved (saving the name again replaces it)' }) createdAt: string;
}

@ApiSchema({ name: 'RunArtifactList' })
export class RunArtifactListDto {
  @ApiProperty({ type: [RunArtifactDto], description: 'by name' }) items: RunArtifactDto[];
}
