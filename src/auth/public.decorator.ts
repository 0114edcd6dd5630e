import { SetMetadata } from '@nestjs/common';
import { declaringAccess } from './access-documentation.js';
import { IS_PUBLIC_KEY } from './access-metadata.js';

export { IS_PUBLIC_KEY } from './access-metadata.js';

/**
 * A route that needs no token; the OpenAPI document shows it with `security: []`. Every other
 * route must declare its permissions.
 */
export const Public = (): MethodDecorator & ClassDecorator => declaringAccess(SetMetadata(IS_PUBLIC_KEY, true));
