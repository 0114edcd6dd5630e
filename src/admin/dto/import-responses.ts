import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ImportProblem } from '../../exchange/config-document.js';

/** The JSON answer of POST /api/config/import (the export is YAML, described where it is served). */

@ApiSchema({ name: 'ConfigImportCounts' })
export class ConfigImportCountsDto {
  @ApiProperty({ type: [String], description: 'the keys of the stored settings now in force, sorted' }) settings: string[];
  @ApiProperty({ type: 'integer', description: 'people granted roles' }) people: number;
  @ApiProperty({ type: 'integer', description: 'group mappings' }) groups: number;
  @ApiProperty({ type: 'integer', description: 'custom roles' }) roles: number;
}

@ApiSchema({ name: 'ConfigImportProblem' })
export class ConfigImportProblemDto implements ImportProblem {
  @ApiProperty({ description: 'where in the document', example: 'configuration.queue.max_parallel_runs' }) path: string;
  @ApiProperty() error: string;
}

@ApiSchema({ name: 'ConfigImported' })
export class ConfigImportedDto {
  @ApiProperty({ type: ConfigImportCountsDto, description: 'what now replaces the stored settings and access records' }) imported: ConfigImportCountsDto;
  @ApiProperty({ type: 'integer', description: 'the change record of the import (`config.import`, not revertible)' }) change: number;
  @ApiProperty({ type: [ConfigImportProblemDto], description: 'what the loader reports on the imported configuration without refusing it' }) warnings: ConfigImportProblemDto[];
}
