import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticationService } from '../auth/authentication.service.js';
import type { Permission } from '../auth/permission.js';
import { missingPermissions } from '../auth/principal.js';
import { IS_PUBLIC_KEY } from '../auth/public.decorator.js';
import { REQUIRED_PERMISSIONS_KEY } from '../auth/require-permissions.decorator.js';
import { HubEvent, type HubSocket } from './hub-socket.js';

/**
 * The HTTP permission table applied to hub methods. A refusal is an `error` event with the
 * permission-denied body plus the method name; the call is not run.
 */
@Injectable()
export class HubGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authn: AuthenticationService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const socket = context.switchToWs().getClient<HubSocket>();
    const method = context.switchToWs().getPattern();
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    const required = this.reflector.getAllAndOverride<Permission[] | undefined>(REQUIRED_PERMISSIONS_KEY, targets);
    if (required === undefined) {
      socket.emit(HubEvent.Error, { error: 'this hub method declares no permissions', missingPermissions: [], method });
      return false;
    }
    if (!this.authn.enforce) return true;
    const missing = missingPermissions(socket.data.principal, required);
    if (missing.length === 0) return true;
    socket.emit(HubEvent.Error, { error: `missing permission${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, missingPermissions: missing, method });
    return false;
  }
}
