import { Inject, Injectable } from '@nestjs/common';
import { AccessStoreService } from '../access/access-store.service.js';
import { ObservationRecorder } from '../access/observation-recorder.service.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { DEFAULT_AUTH_CLAIMS } from '../config/service-config.js';
import { AuthorityService } from './authority.service.js';
import { type Principal, principalOf } from './principal.js';
import { type ClaimNames, resolveRoles } from './role-resolution.js';
import { type TokenRefusalDetail, type TokenRefusalReason, bearerTokenOf } from './token-validator.js';

export type Authentication =
  | { kind: 'principal'; principal: Principal }
  | { kind: 'refused'; reason: TokenRefusalReason; detail: TokenRefusalDetail }
  /** No authority configured: nothing authenticates. */
  | { kind: 'unconfigured' };

/** Bearer token → validated, resolved caller. No session: every request is validated. */
@Injectable()
export class AuthenticationService {
  constructor(
    private readonly authority: AuthorityService,
    private readonly config: ConfigService,
    private readonly access: AccessStoreService,
    private readonly observations: ObservationRecorder,
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
  ) {}

  get enforce(): boolean {
    return this.authority.enforce;
  }

  claimNames(): ClaimNames {
    const auth = this.config.config.auth;
    return {
      role_claim: auth?.role_claim ?? DEFAULT_AUTH_CLAIMS.role_claim,
      group_claim: auth?.group_claim ?? DEFAULT_AUTH_CLAIMS.group_claim,
      name_claim: auth?.name_claim ?? DEFAULT_AUTH_CLAIMS.name_claim,
    };
  }

  async authenticate(authorization: string | string[] | undefined): Promise<Authentication> {
    const validator = this.authority.validator;
    if (!validator) return { kind: 'unconfigured' };
    const result = await validator.validate(bearerTokenOf(authorization));
    if (!result.ok) return { kind: 'refused', reason: result.reason, detail: result.detail };
    const claimNames = this.claimNames();
    const resolution = resolveRoles({
      claims: result.claims,
      claimNames,
      access: await this.access.document(),
      adminGrant: this.env.adminGrant,
    });
    const principal = principalOf({
      claims: result.claims, roleClaim: claimNames.role_claim, groupClaim: claimNames.group_claim,
      nameClaim: claimNames.name_claim, resolution,
    });
    this.observations.note(principal);
    return { kind: 'principal', principal };
  }
}
