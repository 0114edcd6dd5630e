import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { ALL_PERMISSIONS, type Permission } from '../permission.js';
import type { PermissionDeniedBody } from '../permission-denied.js';

/** OpenAPI schema of the 403 body (`PermissionDeniedBody` stays the source of truth). */
@ApiSchema({ name: 'PermissionDeniedBody' })
export class PermissionDeniedBodyDto implements PermissionDeniedBody {
  @ApiProperty({ example: 'missing permission: runs.read' }) error: string;
  @ApiProperty({ enum: [...ALL_PERMISSIONS], isArray: true, description: 'every permission of the route the caller lacks' })
  missingPermissions: Permission[];
}
