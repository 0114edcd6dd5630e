import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ApiPropertyOptional } from '../../common/api-docs.js';
import { ToInteger } from '../../common/request-validation.js';

export const MAX_EVENT_PAGE = 1000;
/** Event numbers are PostgreSQL integers. */
const MAX_SEQ = 2_147_483_647;

/** Query of `GET /api/runs/:id/events`: events with `seq` greater than `after`, in order. */
export class RunEventsQuery {
  @ApiPropertyOptional({ minimum: 0, default: 0, description: 'return events whose seq is greater than this' })
  @IsOptional() @ToInteger() @IsInt({ message: 'after must be a non-negative integer' }) @Min(0, { message: 'after must be a non-negative integer' })
  @Max(MAX_SEQ, { message: `after must be at most ${MAX_SEQ} (the largest event number)` })
  after: number = 0;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_EVENT_PAGE, default: 500 })
  @IsOptional() @ToInteger() @IsInt({ message: `limit must be an integer from 1 to ${MAX_EVENT_PAGE}` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_EVENT_PAGE}` }) @Max(MAX_EVENT_PAGE, { message: `limit must be an integer from 1 to ${MAX_EVENT_PAGE}` })
  limit: number = 500;
}
