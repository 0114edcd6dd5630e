import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator.js';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/api-docs.js';
import { ConfigService } from '../config/config.service.js';
import { DashboardBundleRef } from './dashboard-bundle.ref.js';
import { DashboardSettingsDto } from './dto/dashboard-settings.dto.js';

export const DEFAULT_SCOPES = 'openid profile offline_access';
export const DEFAULT_REDIRECT_PATH = '/signin-callback';

@ApiTags('dashboard')
@Controller('api/dashboard/settings')
export class DashboardSettingsController {
  constructor(
    private readonly config: ConfigService,
    private readonly bundle: DashboardBundleRef,
  ) {}

  /** Public: the app needs it before anyone has signed in. It holds nothing secret. */
  @Public()
  @Get()
  @ApiOperation({ summary: 'How the dashboard signs in', description: 'The authority, public client id, scopes and return path of the dashboard, the audience and the server build.' })
  @ApiOkResponse({ type: DashboardSettingsDto })
  settings(): DashboardSettingsDto {
    const auth = this.config.config.auth;
    return {
      authority: auth?.authority ?? null,
      clientId: auth?.client_id ?? null,
      scopes: auth?.scopes ?? DEFAULT_SCOPES,
      redirectPath: auth?.redirect_path ?? DEFAULT_REDIRECT_PATH,
      audience: auth?.audience ?? null,
      build: this.bundle.build,
    };
  }
}
