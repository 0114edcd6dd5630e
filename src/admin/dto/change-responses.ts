import type { ChangeRow } from '../../changes/change-record.js';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { ANY_JSON_VALUE } from '../../common/dto/any-json-value.js';

/** The answers of the change feed and revert. */

@ApiSchema({ name: 'ConfigChange' })
export class ConfigChangeDto implements ChangeRow {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ description: 'who wrote it: the name_claim principal, or dashboard', example: 'root@example.test' }) attribution: string;
  @ApiProperty({ description: '`secret.put`, `secret.delete`, `setting.put`, `setting.delete`, `access.<change>`, `config.import` or `archive.restore`', example: 'setting.put' })
  kind: string;
  @ApiProperty({ description: '`secret:NAME`, `setting:dotted.key`, `person:claim:value`, `group:value`, `role:name`, `claims`, `configuration` or `archive`', example: 'setting:queue.max_parallel_runs' })
  target: string;
  @ApiProperty({ ...ANY_JSON_VALUE, description: 'the target before the write, shaped by `kind` (null: there was none); a secret\'s value shown as `***`' }) before: unknown;
  @ApiProperty({ ...ANY_JSON_VALUE, description: 'the target after the write, shaped by `kind` (null: removed); a secret\'s value shown as `***`' }) after: unknown;
  @ApiProperty({ type: 'integer', nullable: true, description: 'the change this one reverts' }) revertOf: number | null;
}

@ApiSchema({ name: 'ConfigChangePage' })
export class ConfigChangePageDto {
  @ApiProperty({ type: [ConfigChangeDto], description: 'newest first' }) changes: ConfigChangeDto[];
  @ApiProperty({ type: 'integer', description: 'change records over all pages' }) total: number;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
}

@ApiSchema({ name: 'ConfigChangeReverted' })
export class ConfigChangeRevertedDto {
  @ApiProperty({ type: 'integer', description: 'the change reverted' }) reverted: number;
  @ApiProperty({ type: 'integer', description: 'the revert\'s own change record (its `revertOf` is `reverted`)' }) change: number;
}
