import type { Reflector } from '@nestjs/core';
import type { Permission } from './permission.js';
import { IS_PUBLIC_KEY, REQUIRED_PERMISSIONS_KEY } from './access-metadata.js';

export type AccessDeclaration =
  | { kind: 'public' }
  | { kind: 'permissions'; permissions: Permission[] }
  | { kind: 'none' };

/**
 * What a route or hub method declares: its own decorator first, then its class's. A handler's
 * `@RequirePermissions` is therefore never opened up by a class-level `@Public`, and when a
 * target carries both, the permissions win (the safe reading of a contradiction).
 */
export function accessDeclaration(reflector: Reflector, handler: Function, owner: Function): AccessDeclaration {
  for (const target of [handler, owner]) {
    const permissions = reflector.get<Permission[] | undefined>(REQUIRED_PERMISSIONS_KEY, target);
    if (permissions !== undefined) return { kind: 'permissions', permissions };
    if (reflector.get<boolean | undefined>(IS_PUBLIC_KEY, target) === true) return { kind: 'public' };
  }
  return { kind: 'none' };
}
