import { BadRequestException, Body, Controller, Delete, Get, NotFoundException, Param, Put, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { attributionOf } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import {
  ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags,
  ApiUnprocessableEntityResponse,
} from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { ConfigCatalog } from '../settings/config-catalog.service.js';
import { checkSettingKey } from '../settings/settings-document.js';
import { type SettingWriteResult, SettingsWriter } from '../settings/settings-writer.service.js';
import { SettingKeyParams, SettingValueBody } from './dto/setting-dto.js';
import { SettingViewDto, SettingWrittenDto, StoredSettingsDto } from './dto/setting-responses.js';
import { refusalOf } from './refusal.js';

const REFUSED_422 = 'code invalid_key, not_a_setting, literal_secret (with `fields`: store the value under /api/secrets and save `${NAME}`) or invalid_setting (with `findings`: each `{field, severity, reason}`, an unknown key included)';

/**
 * Stored settings: values saved here over the bootstrap file, applied on every replica within a
 * second, no restart (spec: "A changed configuration reloads live"). Reads need config.read,
 * writes config.write; every write is a change record attributed to the caller's name claim.
 */
@ApiTags('config')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed key or body, named in `error`' })
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/config/settings')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class ConfigSettingsController {
  constructor(
    private readonly catalog: ConfigCatalog,
    private readonly writer: SettingsWriter,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Stored settings', description: 'Every setting saved over the bootstrap file, with when and by whom; values masked as in GET /api/config.' })
  @ApiOkResponse({ type: StoredSettingsDto, description: 'every stored setting, sorted by key' })
  @RequirePermissions(Permission.ConfigRead)
  async list(): Promise<StoredSettingsDto> {
    return { settings: await this.catalog.storedSettings() };
  }

  @Get(':key')
  @ApiOperation({ summary: 'One key in force', description: 'The value in force at the key (a block: everything under it), its source, each key under it, and the setting stored at exactly this key if any.' })
  @ApiOkResponse({ type: SettingViewDto, description: 'what is in force at the key' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'nothing is in force at the key' })
  @RequirePermissions(Permission.ConfigRead)
  async get(@Param() p: SettingKeyParams): Promise<SettingViewDto> {
    const checked = checkSettingKey(p.key);
    if (!checked.ok && checked.code === 'invalid_key') throw new BadRequestException({ error: checked.error, code: checked.code });
    const setting = checked.ok || checked.code === 'bootstrap_setting' ? await this.catalog.setting(p.key) : null;
    if (!setting) throw new NotFoundException({ error: checked.ok ? `nothing is in force at ${p.key}: no default, file or stored value` : checked.error, code: 'not_found' });
    return setting;
  }

  @Put(':key')
  @ApiOperation({
    summary: 'Save a setting',
    description: 'Lays the value over the bootstrap file at the key; validated as the loader reads it (only what the save changes can refuse it), '
      + 'applied on this replica before the answer and on every other within a second. A stored key below this one still wins over it (`overriddenBy`).',
  })
  @ApiOkResponse({ type: SettingWrittenDto, description: 'saved: what is in force at the key now' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'code bootstrap_setting: auth.authority, auth.audience and auth.enforce change only in the file or environment, with a restart' })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: REFUSED_422 })
  @RequirePermissions(Permission.ConfigWrite)
  async save(@Param() p: SettingKeyParams, @Body() body: SettingValueBody, @CurrentAuth() auth: RequestAuth): Promise<SettingWrittenDto> {
    return this.answer(p.key, await this.writer.save(p.key, body.value, attributionOf(auth.principal)));
  }

  @Delete(':key')
  @ApiOperation({ summary: 'Remove a setting', description: 'The key goes back to the bootstrap file\'s value, or the default; validated like a save.' })
  @ApiOkResponse({ type: SettingWrittenDto, description: 'removed: what is in force at the key now' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no setting is stored at the key' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'code bootstrap_setting' })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: REFUSED_422 })
  @RequirePermissions(Permission.ConfigWrite)
  async remove(@Param() p: SettingKeyParams, @CurrentAuth() auth: RequestAuth): Promise<SettingWrittenDto> {
    return this.answer(p.key, await this.writer.remove(p.key, attributionOf(auth.principal)));
  }

  /** What is in force at the key now (this replica applied the write before answering). */
  private async answer(key: string, result: SettingWriteResult): Promise<SettingWrittenDto> {
    if (result.outcome === 'refused') throw refusalOf(result.refusal);
    const { changeId, warnings, overriddenBy } = result;
    const setting = await this.catalog.setting(key);
    return {
      ...(setting ?? { key, value: null, source: 'default', keys: [], stored: null, bootstrap: false }),
      change: changeId, warnings: warnings.map(({ field, severity, reason }) => ({ field, severity, reason })), overriddenBy,
    };
  }
}
