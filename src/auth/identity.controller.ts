import { Controller, Get } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '../common/api-docs.js';
import { ConfigService } from '../config/config.service.js';
import type { Finding } from '../findings/finding.js';
import { FindingSubsystem, finding } from '../findings/finding.js';
import { nameClaimWarning } from './access-rules.js';
import { AuthenticationService } from './authentication.service.js';
import { IdentityRefusalDto } from './dto/identity-refusal.dto.js';
import { IdentityResponseDto } from './dto/identity-response.dto.js';
import { Permission } from './permission.js';
import { type IdentityResponse, identityResponseOf } from './principal.js';
import { CurrentAuth, type RequestAuth } from './request-auth.js';
import { RequirePermissions } from './require-permissions.decorator.js';
import type { IdentityRefusal } from './identity-refusal.js';


@ApiTags('identity')
@ApiExtraModels(IdentityResponseDto, IdentityRefusalDto)
@Controller('api/identity')
export class IdentityController {
  constructor(
    private readonly authn: AuthenticationService,
    private readonly config: ConfigService,
  ) {}

  /** Every validated caller holds identity.read, with or without roles. */
  @Get()
  @RequirePermissions(Permission.IdentityRead)
  @ApiOperation({ summary: 'Who the caller is', description: 'The validated caller, its roles and permissions and where they came from; with enforcement off, why a token was refused.' })
  @ApiOkResponse({ description: 'the caller, or why there is none', schema: { oneOf: [{ $ref: getSchemaPath(IdentityResponseDto) }, { $ref: getSchemaPath(IdentityRefusalDto) }] } })
  identity(@CurrentAuth() auth: RequestAuth): IdentityResponse | IdentityRefusal {
    const standing = this.standingFindings();
    if (auth.principal) {
      const response = identityResponseOf(auth.principal);
      return { ...response, findings: [...response.findings, ...standing] };
    }
    const refusal = auth.refusal
      ? { reason: auth.refusal.reason, detail: auth.refusal.detail, message: auth.refusal.detail.message }
      : this.authn.enforce || this.config.config.auth?.authority
        ? { reason: 'missing' as const, detail: null, message: 'no bearer token was presented' }
        : { reason: 'not_configured' as const, detail: null, message: 'no token authority is configured (auth.authority): nothing authenticates' };
    return { authenticated: false, refusal, findings: standing };
  }

  /** Rule 6 (name_claim is not `sub`) and rule 8 (dashboard scopes naming another resource). */
  private standingFindings(): Finding[] {
    const out: Finding[] = [];
    const warning = nameClaimWarning(this.authn.claimNames());
    if (warning) out.push(warning);
    const auth = this.config.config.auth;
    const resources = (auth?.scopes ?? '').split(/\s+/).filter((s) => s.includes('/')).map((s) => s.slice(0, s.lastIndexOf('/')));
    const audience = auth?.audience;
    for (const resource of new Set(resources)) {
      if (audience && resource !== audience && resource !== `api://${audience}`) {
        out.push(finding(FindingSubsystem.Auth, 'advisory',
          `the dashboard asks for scopes of resource ${resource}, but the server's audience is ${audience}: its tokens will be refused on audience`,
          { field: 'SERVICE_AUTH_SCOPES' }));
      }
    }
    return out;
  }
}
