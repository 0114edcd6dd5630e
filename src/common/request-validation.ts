import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';
import { Transform } from 'class-transformer';
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
export const requestValidation = new ValidationPipe({
  transform: true,
  whitelist: true,
  forbidNonWhitelisted: true,
  stopAtFirstError: true,
  exceptionFactory: (errors) => new BadRequestException({ error: describeValidationErrors(errors) } satisfies ErrorBody),
});

/** A decimal integer string (`12`, `-3`) becomes a number; anything else stays as it was, for the validator to refuse. */
export const ToInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value));
