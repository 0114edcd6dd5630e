import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Length } from 'class-validator';

/** Query of `GET /api/runs/statistics`. */
export class StatisticsQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'only runs created at or after (ISO 8601)' })
  @IsOptional() @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;

  @ApiPropertyOptional({ description: 'project name' })
  @IsOptional() @IsString({ message: 'project must be given once' }) @Length(1, 200, { message: 'project must be 1 to 200 characters' })
  project?: string;
}
