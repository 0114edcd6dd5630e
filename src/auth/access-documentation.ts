import type { CustomDecorator } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type * as Swagger from '@nestjs/swagger';
import { withApiDocs } from '../common/api-docs.js';
import { accessDeclaration } from './access-declaration.js';
import { PermissionDeniedBodyDto } from './dto/permission-denied-body.dto.js';
import { UnauthorizedBodyDto } from './dto/unauthorized-body.dto.js';

/** Name of the bearer scheme in the OpenAPI document's `components.securitySchemes`. */
export const BEARER_SCHEME = 'bearer';
/** Operation extension listing the permissions a route needs, all together. */
export const PERMISSIONS_EXTENSION = 'x-required-permissions';
/** Operation extension marking a route `@Public()`; the document factory turns it into `security: []`. */
export const PUBLIC_EXTENSION = 'x-public';

const reflector = new Reflector();

/**
 * Wraps an access declaration's `SetMetadata` so that the one decorator also writes the OpenAPI
 * metadata of what it declares. Swagger's own decorators on a class reach every method, which
 * would let a class's declaration override a method's; here each route method is documented with
 * `accessDeclaration`, the guard's own reading (the method's declaration first, then its class's).
 */
export function declaringAccess(setMetadata: CustomDecorator): MethodDecorator & ClassDecorator {
  return ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      setMetadata(target, key!, descriptor);
      const method = descriptor.value as Function;
      withApiDocs((swagger) => documentAccess(swagger, method, target.constructor));
      return descriptor;
    }
    setMetadata(target as Function);
    // Class decorators run after method decorators: every route method is already declared here.
    for (const method of routeMethodsOf(target as Function)) withApiDocs((swagger) => documentAccess(swagger, method, target as Function));
    return target;
  }) as MethodDecorator & ClassDecorator;
}

function routeMethodsOf(owner: Function): Function[] {
  const prototype = owner.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== 'constructor')
    .map((name) => Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown)
    .filter((value): value is Function => typeof value === 'function' && Reflect.hasMetadata(METHOD_METADATA, value));
}

/**
 * Writes what a route method effectively declares, when the OpenAPI metadata is applied (see
 * api-docs.ts: in the order the decorators ran). Idempotent, and it only ever moves a method
 * from public to guarded (permissions win over `@Public()` on the same target, and a method's
 * own declaration over its class's), so nothing written earlier needs taking back.
 */
function documentAccess(swagger: typeof Swagger, method: Function, owner: Function): void {
  const { ApiForbiddenResponse, ApiUnauthorizedResponse, DECORATORS } = swagger;
  const declared = accessDeclaration(reflector, method, owner);
  if (declared.kind === 'none') return;
  const extensions = { ...(Reflect.getMetadata(DECORATORS.API_EXTENSION, method) as Record<string, unknown> | undefined) };
  if (declared.kind === 'public') {
    Reflect.defineMetadata(DECORATORS.API_EXTENSION, { ...extensions, [PUBLIC_EXTENSION]: true }, method);
    return;
  }
  const permissions = declared.permissions;
  delete extensions[PUBLIC_EXTENSION];
  Reflect.defineMetadata(DECORATORS.API_EXTENSION, { ...extensions, [PERMISSIONS_EXTENSION]: [...permissions] }, method);

  const security = (Reflect.getMetadata(DECORATORS.API_SECURITY, method) as Record<string, string[]>[] | undefined) ?? [];
  if (!security.some((requirement) => BEARER_SCHEME in requirement)) {
    Reflect.defineMetadata(DECORATORS.API_SECURITY, [...security, { [BEARER_SCHEME]: [] }], method);
  }
  const responses = (Reflect.getMetadata(DECORATORS.API_RESPONSE, method) as Record<string, unknown> | undefined) ?? {};
  const descriptor = { value: method };
  if (!('401' in responses)) {
    ApiUnauthorizedResponse({ type: UnauthorizedBodyDto, description: 'no valid bearer token (with `WWW-Authenticate: Bearer`)' })({}, '', descriptor);
  }
  if (!('403' in responses)) {
    ApiForbiddenResponse({ type: PermissionDeniedBodyDto, description: permissions.length === 1 ? `the token lacks ${permissions[0]}` : `the token lacks one or more of ${permissions.join(', ')}` })({}, '', descriptor);
  }
}
