import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable, InternalServerErrorException, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accessDeclaration } from './access-declaration.js';
import { AuthenticationService } from './authentication.service.js';
import { permissionDeniedBody } from './permission-denied.js';
import { missingPermissions } from './principal.js';
import type { WithAuth } from './request-auth.js';
import { unauthorizedBody, wwwAuthenticate } from './unauthorized.js';

/**
 * The one global guard for HTTP routes. Public routes pass; every other route must declare its
 * permissions (an undeclared route is a defect and is refused). With `enforce` off tokens are
 * validated and nothing is refused; with it on, no valid token → 401 with
 * `WWW-Authenticate: Bearer`, a missing permission → 403 naming every missing one.
 */
@Injectable()
export class PermissionsGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authn: AuthenticationService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true; // the hub applies the same table itself
    const declared = accessDeclaration(this.reflector, context.getHandler(), context.getClass());
    if (declared.kind === 'public') return true;
    if (declared.kind === 'none') {
      throw new InternalServerErrorException('this route declares no permissions; it is refused until it does');
    }
    const required = declared.permissions;

    const req = context.switchToHttp().getRequest<FastifyRequest & WithAuth>();
    const enforce = this.authn.enforce;
    const header = req.headers.authorization;
    const result = header === undefined && !enforce ? { kind: 'unconfigured' as const } : await this.authn.authenticate(header);
    req.auth = {
      principal: result.kind === 'principal' ? result.principal : null,
      refusal: result.kind === 'refused' ? { reason: result.reason, detail: result.detail } : null,
    };
    if (!enforce) return true;

    if (result.kind !== 'principal') {
      const reason = result.kind === 'refused' ? result.reason : 'not_configured';
      context.switchToHttp().getResponse<FastifyReply>().header('WWW-Authenticate', wwwAuthenticate(reason));
      throw new UnauthorizedException(unauthorizedBody(reason, result.kind === 'refused' ? result.detail : null));
    }
    const missing = missingPermissions(result.principal, required);
    if (missing.length > 0) {
      throw new ForbiddenException(permissionDeniedBody(missing));
    }
    return true;
  }
}
