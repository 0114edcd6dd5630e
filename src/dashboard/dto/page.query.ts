import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
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
};
