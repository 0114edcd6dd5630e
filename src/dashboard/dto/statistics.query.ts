import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';
import { TextFilter } from './page.query.js';

/** Query of `GET /api/runs/statistics`. */
export class StatisticsQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'only runs created at or after (ISO 8601)' })
  @IsOptional() @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;

  @TextFilter('project', 'project name')
  project?: string;
}
