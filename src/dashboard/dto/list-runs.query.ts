import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ToInteger } from '../../common/request-validation.js';
import { RunState } from '../../database/entities/run.entity.js';
import { ALL_PLATFORMS, type Platform } from '../../platforms/platform.js';

export const RUN_STATES = Object.values(RunState);
export const MAX_RUN_PAGE = 200;

/** Query of `GET /api/runs` (contract "Runs API details"). */
export class ListRunsQuery {
  @ApiPropertyOptional({ enum: RUN_STATES, description: 'run state' })
  @IsOptional() @IsIn(RUN_STATES, { message: `state must be one of ${RUN_STATES.join(', ')}` })
  state?: RunState;

  @ApiPropertyOptional({ description: 'project name' })
  @IsOptional() @IsString({ message: 'project must be given once' }) @Length(1, 200, { message: 'project must be 1 to 200 characters' })
  project?: string;

  @ApiPropertyOptional({ description: 'ticket id (e.g. 42, BILL-12)' })
  @IsOptional() @IsString({ message: 'ticket must be given once' }) @Length(1, 200, { message: 'ticket must be 1 to 200 characters' })
  ticket?: string;

  @ApiPropertyOptional({ description: 'pipeline name' })
  @IsOptional() @IsString({ message: 'pipeline must be given once' }) @Length(1, 200, { message: 'pipeline must be 1 to 200 characters' })
  pipeline?: string;

  @ApiPropertyOptional({ enum: ALL_PLATFORMS })
  @IsOptional() @IsIn(ALL_PLATFORMS, { message: `platform must be one of ${ALL_PLATFORMS.join(', ')}` })
  platform?: Platform;

  @ApiPropertyOptional({ format: 'date-time', description: 'createdAt at or after (ISO 8601)' })
  @IsOptional() @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'createdAt before (ISO 8601)' })
  @IsOptional() @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date-time' })
  until?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_RUN_PAGE, default: 50 })
  @IsOptional() @ToInteger() @IsInt({ message: `limit must be an integer from 1 to ${MAX_RUN_PAGE}` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_RUN_PAGE}` }) @Max(MAX_RUN_PAGE, { message: `limit must be an integer from 1 to ${MAX_RUN_PAGE}` })
  limit: number = 50;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional() @ToInteger() @IsInt({ message: 'offset must be a non-negative integer' }) @Min(0, { message: 'offset must be a non-negative integer' })
  offset: number = 0;
}
