import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { ImportProblem } from '../../exchange/config-document.js';
import type { UnresolvedSecret } from '../../exchange/configuration-exchange.js';

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

@ApiSchema({ name: 'ConfigImportUnresolved' })
export class ConfigImportUnresolvedDto implements UnresolvedSecret {
  @ApiProperty({ description: 'the secret name, as `${NAME}` references it', example: 'SHOP_TOKEN' }) name: string;
  @ApiProperty({ type: [String], description: 'the configuration keys referencing it (dotted, as findings name fields)', example: ['projects.shop.repos[0].auth_secret'] })
  used_by: string[];
}

@ApiSchema({ name: 'ConfigImported' })
export class ConfigImportedDto {
  @ApiProperty({ type: ConfigImportCountsDto, description: 'what now replaces the stored settings and access records' }) imported: ConfigImportCountsDto;
  @ApiProperty({ type: 'integer', description: 'the change record of the import (`config.import`, not revertible)' }) change: number;
  @ApiProperty({ type: [ConfigImportProblemDto], description: 'what the loader reports on the imported configuration without refusing it' }) warnings: ConfigImportProblemDto[];
  @ApiProperty({
    type: [ConfigImportUnresolvedDto],
    description: 'every `${NAME}` the imported configuration references that resolves to nothing on this installation (sorted by name; [] when all resolve). '
      + 'Each counts as unconfigured, a finding at each key of `used_by` on GET /api/config/findings, until the name is given here: '
      + 'PUT /api/secrets/NAME, the bootstrap file\'s `secrets:` block, or the environment',
  })
  unresolved: ConfigImportUnresolvedDto[];
}
