import type * as Swagger from '@nestjs/swagger';

/**
 * The OpenAPI decorators, recorded rather than applied. `@nestjs/swagger` costs about 11 MB of
 * resident memory and 400 modules at boot, yet its metadata is read only to build the document,
 * which happens on the first request to /api/docs (or in a test). So controllers and DTOs import
 * the decorators from here: each call is kept with its target, and `applyApiDocs` loads nothing
 * itself but, handed the loaded package, replays every call in the order the decorators ran, so
 * swagger sees exactly what it would have seen at class definition. Calls made after that apply at
 * once. The signatures are swagger's own (type-only import: nothing is loaded by it).
 */

type SwaggerPackage = typeof Swagger;
type Step = (swagger: SwaggerPackage) => void;
type AnyDecorator = (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => unknown;

const pending: Step[] = [];
let applied: SwaggerPackage | null = null;
/** `@ApiSchema({ name })` per class, for `getSchemaPath` before swagger is loaded. */
const schemaNames = new WeakMap<object, string>();

/** Runs `step` with the loaded package: now if it was applied already, otherwise when it is. */
export function withApiDocs(step: Step): void {
  if (applied) step(applied);
  else pending.push(step);
}

/** Replays every recorded decorator call onto its target, once, in the order they were made. */
export function applyApiDocs(swagger: SwaggerPackage): void {
  if (applied) return;
  applied = swagger;
  for (const step of pending.splice(0)) step(swagger);
}

type DecoratorName = {
  [K in keyof SwaggerPackage]: SwaggerPackage[K] extends (...args: never[]) => AnyDecorator | PropertyDecorator | MethodDecorator | ClassDecorator ? K : never
}[keyof SwaggerPackage];

function recorded<K extends DecoratorName>(name: K): SwaggerPackage[K] {
  return ((...args: unknown[]) => (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    withApiDocs((swagger) => {
      const decorate = (swagger[name] as (...a: unknown[]) => AnyDecorator)(...args);
      decorate(target, key, descriptor);
    });
    return descriptor;
  }) as unknown as SwaggerPackage[K];
}

export const ApiProperty = recorded('ApiProperty');
export const ApiPropertyOptional = recorded('ApiPropertyOptional');
export const ApiExtraModels = recorded('ApiExtraModels');
export const ApiOperation = recorded('ApiOperation');
export const ApiTags = recorded('ApiTags');
export const ApiParam = recorded('ApiParam');
export const ApiBody = recorded('ApiBody');
export const ApiConsumes = recorded('ApiConsumes');
export const ApiProduces = recorded('ApiProduces');
export const ApiResponse = recorded('ApiResponse');
export const ApiOkResponse = recorded('ApiOkResponse');
export const ApiCreatedResponse = recorded('ApiCreatedResponse');
export const ApiAcceptedResponse = recorded('ApiAcceptedResponse');
export const ApiNoContentResponse = recorded('ApiNoContentResponse');
export const ApiBadRequestResponse = recorded('ApiBadRequestResponse');
export const ApiUnauthorizedResponse = recorded('ApiUnauthorizedResponse');
export const ApiForbiddenResponse = recorded('ApiForbiddenResponse');
export const ApiNotFoundResponse = recorded('ApiNotFoundResponse');
export const ApiConflictResponse = recorded('ApiConflictResponse');
export const ApiPayloadTooLargeResponse = recorded('ApiPayloadTooLargeResponse');
export const ApiUnsupportedMediaTypeResponse = recorded('ApiUnsupportedMediaTypeResponse');
export const ApiUnprocessableEntityResponse = recorded('ApiUnprocessableEntityResponse');
export const ApiBadGatewayResponse = recorded('ApiBadGatewayResponse');
export const ApiServiceUnavailableResponse = recorded('ApiServiceUnavailableResponse');

const recordedApiSchema = recorded('ApiSchema');
/** Swagger's `@ApiSchema`, its name also kept here so `getSchemaPath` can answer before loading. */
export const ApiSchema: SwaggerPackage['ApiSchema'] = (options) => {
  const decorate = recordedApiSchema(options);
  return (target) => {
    if (options?.name) schemaNames.set(target, options.name);
    return decorate(target);
  };
};

/** Swagger's `getSchemaPath`: a class's `$ref`, by its `@ApiSchema` name or else its own name. */
export function getSchemaPath(model: string | Function): string {
  const name = typeof model === 'string' ? model : schemaNames.get(model) ?? model.name;
  return `#/components/schemas/${name}`;
}
