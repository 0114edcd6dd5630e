import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { ANY_JSON_VALUE } from '../../common/dto/any-json-value.js';
import type { Finding, Severity } from '../../findings/finding.js';
import type { SettingView } from '../../settings/config-catalog.service.js';
import { type ConfigSource, SOURCE_PRECEDENCE } from '../../settings/effective-config.js';
import type { StoredSettingRow } from '../../settings/settings-rows.js';
import { ConfigLeafDto } from './config-responses.js';

/** The answers of the stored-settings routes. */

@ApiSchema({ name: 'StoredSetting' })
export class StoredSettingDto implements StoredSettingRow {
  @ApiProperty({ example: 'queue.max_parallel_runs' }) key: string;
  @ApiProperty({ ...ANY_JSON_VALUE, description: 'the value saved over the bootstrap file, masked as in GET /api/config (null unsets the key)' }) value: unknown;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiProperty({ description: 'who saved it (the name_claim principal, or dashboard)' }) updatedBy: string;
}

@ApiSchema({ name: 'StoredSettings' })
export class StoredSettingsDto {
  @ApiProperty({ type: [StoredSettingDto], description: 'sorted by key' }) settings: StoredSettingDto[];
}

@ApiSchema({ name: 'Setting' })
export class SettingViewDto implements SettingView {
  @ApiProperty({ example: 'queue.max_parallel_runs' }) key: string;
  @ApiProperty({ ...ANY_JSON_VALUE, description: 'the value in force at the key (a block: everything under it), masked' }) value: unknown;
  @ApiProperty({ enum: SOURCE_PRECEDENCE, description: 'the strongest source among `keys`' }) source: ConfigSource;
  @ApiProperty({ type: [ConfigLeafDto], description: 'each key at or under the key' }) keys: ConfigLeafDto[];
  @ApiProperty({ type: StoredSettingDto, nullable: true, description: 'the setting stored at exactly this key (null: none)' }) stored: StoredSettingDto | null;
  @ApiProperty({ description: 'the key is, holds or lies under a bootstrap setting (changed only in the file or environment, with a restart)' }) bootstrap: boolean;
}

@ApiSchema({ name: 'SettingWarning' })
export class SettingWarningDto implements Pick<Finding, 'field' | 'severity' | 'reason'> {
  @ApiProperty({ type: String, nullable: true, description: 'the setting at fault' }) field: string | null;
  @ApiProperty({ enum: ['blocking', 'advisory'] }) severity: Severity;
  @ApiProperty() reason: string;
}

@ApiSchema({ name: 'SettingWritten', description: 'what is in force at the key after the write' })
export class SettingWrittenDto extends SettingViewDto {
  @ApiProperty({ type: 'integer', nullable: true, description: 'the change record of the write; null when the value was already stored (nothing written)' }) change: number | null;
  @ApiProperty({ type: [SettingWarningDto], description: 'what the loader reports on the configuration the write left, without refusing it' }) warnings: SettingWarningDto[];
  @ApiProperty({ type: [String], description: 'stored keys below this one, which still win over it' }) overriddenBy: string[];
}
