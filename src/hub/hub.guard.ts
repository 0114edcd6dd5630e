import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticationService } from '../auth/authentication.service.js';
import { missingPermissions } from '../auth/principal.js';
import { accessDeclaration } from '../auth/access-declaration.js';
import { HubSessions } from './hub-sessions.js';
import { HubEvent, type HubSocket } from './hub-socket.js';

/**
 * The HTTP permission table applied to hub methods. A refusal is an `error` event with the
 * permission-denied body plus the method name; the call is not run. With enforcement on, every
 * message re-validates the handshake token and re-resolves its roles: a connection is not a
 * session that outlives its token or a revoked role.
 */
@Injectable()
export class HubGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authn: AuthenticationService,
    private readonly sessions: HubSessions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const socket = context.switchToWs().getClient<HubSocket>();
    const method = context.switchToWs().getPattern();
    // The HTTP guard's reading: a method's own declaration wins over its class's.
    const declared = accessDeclaration(this.reflector, context.getHandler(), context.getClass());
    if (declared.kind === 'public') return true;
    if (declared.kind === 'none') {
      socket.emit(HubEvent.Error, { error: 'this hub method declares no permissions', missingPermissions: [], method });
      return false;
    }
    const required = declared.permissions;
    if (!this.authn.enforce) return true;
    const principal = await this.sessions.recheck(socket);
    if (principal === null) return false; // refused and disconnected, with the 401 body
    const missing = missingPermissions(principal, required);
    if (missing.length === 0) return true;
    socket.emit(HubEvent.Error, { error: `missing permission${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, missingPermissions: missing, method });
    return false;
  }
}
