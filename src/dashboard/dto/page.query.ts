import { IsInt, IsISO8601, IsOptional, IsString, Length, Matches, Max, Min, ValidateBy } from 'class-validator';
import { ApiPropertyOptional } from '../../common/api-docs.js';
import { ToInteger } from '../../common/request-validation.js';

export const MAX_PAGE = 200;
const LIMIT_RULE = `limit must be an integer from 1 to ${MAX_PAGE}`;
const OFFSET_RULE = 'offset must be a non-negative integer';

/** `limit` (1–200, default 50) and `offset` (≥ 0) of a paged list; list queries extend it. */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 50 })
  @IsOptional() @ToInteger() @IsInt({ message: LIMIT_RULE }) @Min(1, { message: LIMIT_RULE }) @Max(MAX_PAGE, { message: LIMIT_RULE })
  limit: number = 50;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional() @ToInteger() @IsInt({ message: OFFSET_RULE }) @Min(0, { message: OFFSET_RULE })
  offset: number = 0;
}

/** A free-text filter value (project, ticket, pipeline): one value, 1–200 characters. */
export const TextFilter = (name: string, description: string): PropertyDecorator => (target, key) => {
  ApiPropertyOptional({ description })(target, key);
  IsOptional()(target, key);
  IsString({ message: `${name} must be given once` })(target, key);
  Length(1, 200, { message: `${name} must be 1 to 200 characters` })(target, key);
  // The database refuses NUL in text; no stored name holds a control character anyway.
  Matches(/^[^\u0000-\u001f\u007f]*$/, { message: `${name} must not contain control characters` })(target, key);
};

/**
 * A point in time: a date (`2026-01-31`, midnight UTC) or a date-time with seconds and a zone
 * (`2026-01-31T10:00:00Z`, `…+02:00`). Valid on the calendar, and one `Date` can represent: the
 * ISO forms a `Date` cannot parse (week dates, a time without a zone) are refused, not passed on.
 */
export const DateTimeFilter = (name: string, description: string): PropertyDecorator => (target, key) => {
  const message = `${name} must be a date (2026-01-31) or a date-time with a zone (2026-01-31T10:00:00Z)`;
  ApiPropertyOptional({ format: 'date-time', description })(target, key);
  IsOptional()(target, key);
  IsISO8601({ strict: true }, { message })(target, key);
  ValidateBy({
    name: 'isRepresentableDateTime',
    validator: {
      validate: (value: unknown) => typeof value === 'string'
        && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2}))?$/.test(value)
        && Number.isFinite(Date.parse(value)),
      defaultMessage: () => message,
    },
  })(target, key);
};
