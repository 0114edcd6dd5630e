import { Controller, Get, Param, Post, Query, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { attributionOf } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ConfigChangesService } from '../changes/config-changes.service.js';
import {
  ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags,
  ApiUnprocessableEntityResponse,
} from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { PageQuery } from '../dashboard/dto/page.query.js';
import { ConfigChangePageDto, ConfigChangeRevertedDto } from './dto/change-responses.js';
import { ChangeParams } from './dto/secret-dto.js';
import { refusalOf } from './refusal.js';

/**
 * The change feed and revert. Spec: both need a config and a secrets permission together, since a
 * record may concern either (secret values are masked as `***` in the feed).
 */
@ApiTags('config')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed parameter, named in `error`' })
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/config/changes')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class ConfigChangesController {
  constructor(private readonly changes: ConfigChangesService) {}

  @Get()
  @ApiOperation({ summary: 'Change feed', description: 'Every write of secrets and access, newest first: who (the name_claim principal, or dashboard), what, and before/after (secret values `***`).' })
  @ApiOkResponse({ type: ConfigChangePageDto, description: 'a page of change records, newest first' })
  @RequirePermissions(Permission.ConfigRead, Permission.SecretsRead)
  async list(@Query() page: PageQuery): Promise<ConfigChangePageDto> {
    return { ...(await this.changes.list(page.limit, page.offset)), limit: page.limit, offset: page.offset };
  }

  @Post(':id/revert')
  @ApiOperation({ summary: 'Revert a change', description: 'Puts the target back as the record\'s `before` shows it, under the same rules as a save; the revert is itself a change record (`revertOf`).' })
  // 201: a POST without @HttpCode, and a revert does create a change record.
  @ApiCreatedResponse({ type: ConfigChangeRevertedDto, description: 'reverted; `change` is the revert\'s own record' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no such change' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'code newer_change (with `newerChanges`), in_use, has_holders, no_admin_route, unreadable or not_revertible' })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: 'the restored state is refused at save (access rule 9)' })
  @RequirePermissions(Permission.ConfigWrite, Permission.SecretsWrite)
  async revert(@Param() p: ChangeParams, @CurrentAuth() auth: RequestAuth): Promise<ConfigChangeRevertedDto> {
    const result = await this.changes.revert(p.id, attributionOf(auth.principal), auth.principal);
    if (result.outcome === 'refused') throw refusalOf(result.refusal);
    return { reverted: p.id, change: result.changeId };
  }
}
