import { Controller, Get, UseFilters } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/api-docs.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { ConfigCatalog } from '../settings/config-catalog.service.js';
import { ConfigOverviewDto } from './dto/config-responses.js';

/** The configuration catalog: what is in force on this replica, key by key, with where each value comes from. */
@ApiTags('config')
@Controller('api/config')
@UseFilters(ApiErrorFilter)
export class ConfigController {
  constructor(private readonly catalog: ConfigCatalog) {}

  @Get()
  @ApiOperation({
    summary: 'Configuration in force',
    description: 'Every key in force (defaults < bootstrap file < stored settings; the environment where it gives a value) with its `source` '
      + '(default, file, environment or store). `${NAME}` references are shown as written, values at secret fields as `***`, the secrets block and the '
      + 'stored secrets by name only. The bootstrap settings (auth.authority, auth.audience, auth.enforce) are flagged, with `restartDue` and `configured` '
      + 'when the configuration now says otherwise than what the server started with.',
  })
  @ApiOkResponse({ type: ConfigOverviewDto, description: 'the configuration in force, key by key' })
  @RequirePermissions(Permission.ConfigRead)
  overview(): ConfigOverviewDto {
    return this.catalog.overview();
  }
}
