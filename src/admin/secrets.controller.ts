import { Body, Controller, Delete, Get, HttpCode, Param, Put, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { attributionOf } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import {
  ApiBadRequestResponse, ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags,
} from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { SecretsStore } from '../secrets/secrets-store.service.js';
import { SecretsWriter } from '../secrets/secrets-writer.service.js';
import { SecretParams, SecretValueBody } from './dto/secret-dto.js';
import { SecretSavedDto, StoredSecretsDto } from './dto/secret-responses.js';
import { refusalOf } from './refusal.js';

/**
 * Secret entities (secrets.read / secrets.write): stored encrypted, resolved by `${NAME}`
 * references on every replica without a restart. No response carries a value.
 */
@ApiTags('secrets')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed name or body, named in `error`' })
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/secrets')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class SecretsController {
  constructor(
    private readonly store: SecretsStore,
    private readonly writer: SecretsWriter,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Stored secrets', description: 'Names, when and by whom each was last saved, whether the current key can read it, and the configuration keys that reference it as `${NAME}`. Never a value.' })
  @ApiOkResponse({ type: StoredSecretsDto, description: 'the stored secrets, and the state of SERVICE_SECRETS_KEY' })
  @RequirePermissions(Permission.SecretsRead)
  async list(): Promise<StoredSecretsDto> {
    const rows = await this.store.rows();
    return { secrets: rows.map((r) => ({ ...r, usedBy: this.writer.usesOf(r.name) })), key: this.store.key.state };
  }

  @Put(':name')
  @ApiOperation({ summary: 'Save a secret', description: 'Creates or replaces the value (encrypted under SERVICE_SECRETS_KEY); `${NAME}` references resolve against it on every replica within a second.' })
  @ApiOkResponse({ type: SecretSavedDto, description: 'saved; `change` is the change record' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'code no_secrets_key: SERVICE_SECRETS_KEY is not set or invalid' })
  @RequirePermissions(Permission.SecretsWrite)
  async save(@Param() p: SecretParams, @Body() body: SecretValueBody, @CurrentAuth() auth: RequestAuth): Promise<SecretSavedDto> {
    const result = await this.writer.save(p.name, body.value, attributionOf(auth.principal));
    if (result.outcome === 'refused') throw refusalOf(result.refusal);
    return { name: p.name, usedBy: this.writer.usesOf(p.name), change: result.changeId };
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a secret', description: 'Refused while a configuration key references it (the refusal names the keys in `uses`).' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no such stored secret' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'code in_use with `uses`' })
  @RequirePermissions(Permission.SecretsWrite)
  async remove(@Param() p: SecretParams, @CurrentAuth() auth: RequestAuth): Promise<void> {
    const result = await this.writer.remove(p.name, attributionOf(auth.principal));
    if (result.outcome === 'refused') throw refusalOf(result.refusal);
  }
}
