import { type ArgumentMetadata, BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { clipText } from './clip-text.js';
import type { ErrorBody } from './error-body.js';

/** What is wrong with a request, one clause per parameter: `limit must be …; unknown parameter foo`. */
export function describeValidationErrors(errors: ValidationError[]): string {
  const clauses: string[] = [];
  for (const error of errors) {
    const constraints = error.constraints ?? {};
    if ('whitelistValidation' in constraints) clauses.push(`unknown parameter ${error.property}`);
    else clauses.push(...Object.values(constraints));
    if (error.children?.length) clauses.push(describeValidationErrors(error.children));
  }
  return clauses.join('; ');
}

/**
 * Validates query strings and path parameters against their DTO class: unknown parameters are
 * refused, values converted, and a refusal is a 400 `{error}` naming each parameter at fault
 * (never Nest's `{message: [...]}`, never a 500 from the database).
 */
class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      stopAtFirstError: true,
      exceptionFactory: (errors) => new BadRequestException({ error: describeValidationErrors(errors) } satisfies ErrorBody),
    });
  }

  /**
   * Unknown keys are refused before the DTO is built: class-transformer silently drops a key that
   * names something of the instance (`constructor`, `toString`, `__proto__`), which the whitelist
   * would then never see.
   */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if ((metadata.type === 'query' || metadata.type === 'param') && metadata.metatype && typeof value === 'object' && value !== null) {
      const known = new Set(getMetadataStorage().getTargetValidationMetadatas(metadata.metatype, '', true, false).map((m) => m.propertyName));
      const unknown = Object.keys(value).filter((key) => !known.has(key));
      if (unknown.length > 0) {
        throw new BadRequestException({ error: unknown.map((key) => `unknown parameter ${clipText(key, 60)}`).join('; ') } satisfies ErrorBody);
      }
    }
    return super.transform(value, metadata);
  }
}

export const requestValidation = new RequestValidationPipe();

/** A decimal integer string (`12`, `-3`) becomes a number; anything else stays as it was, for the validator to refuse. */
export const ToInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value));
