import { IsIn, IsOptional } from 'class-validator';
import { ApiPropertyOptional } from '../../common/api-docs.js';
import { RunState } from '../../database/entities/run.entity.js';
import { ALL_PLATFORMS, type Platform } from '../../platforms/platform.js';
import { DateTimeFilter, PageQuery, TextFilter } from './page.query.js';

export const RUN_STATES = Object.values(RunState);

/** Query of `GET /api/runs` (contract "Runs API details"). */
export class ListRunsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: RUN_STATES, description: 'run state' })
  @IsOptional() @IsIn(RUN_STATES, { message: `state must be one of ${RUN_STATES.join(', ')}` })
  state?: RunState;

  @TextFilter('project', 'project name')
  project?: string;

  @TextFilter('ticket', 'ticket id (e.g. 42, BILL-12)')
  ticket?: string;

  @TextFilter('pipeline', 'pipeline name')
  pipeline?: string;

  @ApiPropertyOptional({ enum: ALL_PLATFORMS })
  @IsOptional() @IsIn(ALL_PLATFORMS, { message: `platform must be one of ${ALL_PLATFORMS.join(', ')}` })
  platform?: Platform;

  @DateTimeFilter('since', 'createdAt at or after (ISO 8601)')
  since?: string;

  @DateTimeFilter('until', 'createdAt before (ISO 8601)')
  until?: string;
}
