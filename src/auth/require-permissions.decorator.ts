import { SetMetadata } from '@nestjs/common';
import type { Permission } from './permission.js';

export const REQUIRED_PERMISSIONS_KEY = 'pipeline-service:permissions';

/**
 * The permissions a route or hub method needs, all together. The one declaration the global
 * guard enforces; a handler with neither this nor `@Public()` is refused.
 */
export const RequirePermissions = (...permissions: Permission[]): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_PERMISSIONS_KEY, permissions);
