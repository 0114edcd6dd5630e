import { IsIn, IsOptional } from 'class-validator';
import { ApiPropertyOptional } from '../../common/api-docs.js';
import { StatisticsBucket } from '../run-statistics-series.service.js';
import { DateTimeFilter, TextFilter } from './page.query.js';

const BUCKETS = Object.values(StatisticsBucket);

/** Query of `GET /api/runs/statistics/series`. */
export class StatisticsSeriesQuery {
  @ApiPropertyOptional({ enum: BUCKETS, default: StatisticsBucket.Day, description: 'the width of a bucket (UTC hours or days of createdAt)' })
  @IsOptional() @IsIn(BUCKETS, { message: `bucket must be one of ${BUCKETS.join(', ')}` })
  bucket?: StatisticsBucket;

  @DateTimeFilter('since', 'runs created at or after (ISO 8601); default: 24 hours before `until` by hour, 30 days by day')
  since?: string;

  @DateTimeFilter('until', 'runs created before (ISO 8601); default: now')
  until?: string;

  @TextFilter('project', 'project name')
  project?: string;
}
