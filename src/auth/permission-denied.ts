import type { Permission } from './permission.js';

/** The 403 body: names every permission the caller lacks (spec "Roles and permissions"). */
export interface PermissionDeniedBody {
  error: string;
  missingPermissions: Permission[];
}

export function permissionDeniedBody(missing: Permission[]): PermissionDeniedBody {
  return { error: `missing permission${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, missingPermissions: missing };
}
