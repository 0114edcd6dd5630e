import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { RunState } from '../../database/entities/run.entity.js';
import { RunUsageDto } from '../../runs/resource/dto/run-usage.dto.js';
import type { CriteriaCounts, RunStatistics } from '../run-statistics.service.js';
import { PercentilesDto } from './percentiles.dto.js';

const STATES = Object.values(RunState);

@ApiSchema({ name: 'CriteriaCounts' })
export class CriteriaCountsDto implements CriteriaCounts {
  @ApiProperty({ type: 'integer', description: 'criteria the agent reported met' }) met: number;
  @ApiProperty({ type: 'integer', description: 'criteria the agent reported unmet' }) unmet: number;
  @ApiProperty({ type: 'integer', description: 'criteria the agent reported not applicable' }) notApplicable: number;
  @ApiProperty({ type: 'integer', description: 'judgements that differ from the agent\'s verdict (or judge an unreported criterion)' }) overruled: number;
}

/** What the statistics and each bucket of their series share (a bucket has no criteria counts). */
export abstract class RunCountsDto implements Omit<RunStatistics, 'criteria'> {
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({
    type: 'object', description: 'runs per state, every state present',
    properties: Object.fromEntries(STATES.map((state) => [state, { type: 'integer' }])), required: STATES, selfRequired: true,
  })
  byState: Record<RunState, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'runs per pipeline name' })
  byPipeline: Record<string, number>;
  @ApiProperty({ type: PercentilesDto, description: 'start to end of finished runs that started' }) durationSeconds: PercentilesDto;
  @ApiProperty({ type: PercentilesDto, description: 'claim (createdAt) to start of runs that started' }) queueWaitSeconds: PercentilesDto;
  @ApiProperty({ type: RunUsageDto, description: 'summed over the runs' }) usage: RunUsageDto;
}

@ApiSchema({ name: 'RunStatistics' })
export class RunStatisticsDto extends RunCountsDto implements RunStatistics {
  @ApiProperty({ type: CriteriaCountsDto, description: 'the acceptance criteria of the runs: the agent\'s verdicts, and judgements that overruled them' }) criteria: CriteriaCountsDto;
}
