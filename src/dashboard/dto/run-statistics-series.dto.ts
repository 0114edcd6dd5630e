import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { type RunStatisticsBucket, type RunStatisticsSeries, StatisticsBucket } from '../run-statistics-series.service.js';
import { RunCountsDto } from './run-statistics.dto.js';

@ApiSchema({ name: 'RunStatisticsBucket' })
// The series carries no criteria counts (the statistics' totals do).
export class RunStatisticsBucketDto extends RunCountsDto implements RunStatisticsBucket {
  @ApiProperty({ format: 'date-time', description: 'the bucket\'s start (a UTC hour or day); it ends where the next one starts' }) start: string;
}

@ApiSchema({ name: 'RunStatisticsSeries' })
export class RunStatisticsSeriesDto implements RunStatisticsSeries {
  @ApiProperty({ enum: Object.values(StatisticsBucket) }) bucket: StatisticsBucket;
  @ApiProperty({ format: 'date-time' }) since: string;
  @ApiProperty({ format: 'date-time' }) until: string;
  @ApiProperty({ type: [RunStatisticsBucketDto], description: 'every bucket of the range, oldest first; one without runs has zeros and null percentiles' })
  series: RunStatisticsBucketDto[];
}
