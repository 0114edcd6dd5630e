import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'pipeline-service:public';

/** A route that needs no token. Every other route must declare its permissions. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, true);
