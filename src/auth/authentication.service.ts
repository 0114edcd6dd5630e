import { Inject, Injectable } from '@nestjs/common';
import { AccessStoreService } from '../access/access-store.service.js';
import { ObservationRecorder } from '../access/observation-recorder.service.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import type { ServiceEnvironment } from '../config/environment.js';
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
    private readonly access: AccessStoreService,
    private readonly observations: ObservationRecorder,
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
  ) {}

  get enforce(): boolean {
    return this.authority.enforce;
  }

  /** The claim names in force (saved on the Access surface, else the bootstrap file's). */
  claimNames(): ClaimNames {
    return this.access.claimNames();
  }

  async authenticate(authorization: string | string[] | undefined): Promise<Authentication> {
    const validator = this.authority.validator;
    if (!validator) return { kind: 'unconfigured' };
    const result = await validator.validate(bearerTokenOf(authorization));
    if (!result.ok) return { kind: 'refused', reason: result.reason, detail: result.detail };
    // The snapshot first: claim names saved on another replica apply from this request on.
    const { document } = await this.access.snapshot();
    const claimNames = this.claimNames();
    const resolution = resolveRoles({
      claims: result.claims,
      claimNames,
      access: document,
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
