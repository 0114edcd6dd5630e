import { type ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Principal } from './principal.js';
import type { TokenRefusalDetail, TokenRefusalReason } from './token-validator.js';

/** What the guard learnt about the caller, attached to the request. */
export interface RequestAuth {
  principal: Principal | null;
  refusal: { reason: TokenRefusalReason; detail: TokenRefusalDetail } | null;
}

export interface WithAuth {
  auth?: RequestAuth;
}

/** The caller the guard resolved, or null (anonymous, or enforcement off without a valid token). */
export const CurrentAuth = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestAuth =>
  ctx.switchToHttp().getRequest<WithAuth>().auth ?? { principal: null, refusal: null });
