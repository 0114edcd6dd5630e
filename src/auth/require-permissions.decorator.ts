import { SetMetadata } from '@nestjs/common';
import { declaringAccess } from './access-documentation.js';
import { REQUIRED_PERMISSIONS_KEY } from './access-metadata.js';
import type { Permission } from './permission.js';

export { REQUIRED_PERMISSIONS_KEY } from './access-metadata.js';

/**
 * The permissions a route or hub method needs, all together. The one declaration the global
 * guard enforces and the OpenAPI document shows (bearer security, `x-required-permissions`,
 * 401/403 answers); a handler with neither this nor `@Public()` is refused.
 */
export const RequirePermissions = (...permissions: Permission[]): MethodDecorator & ClassDecorator =>
  declaringAccess(SetMetadata(REQUIRED_PERMISSIONS_KEY, permissions));
