import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { Percentiles } from '../run-statistics.service.js';

/** Seconds; null when no run qualifies. */
@ApiSchema({ name: 'Percentiles' })
export class PercentilesDto implements Percentiles {
  @ApiProperty({ type: Number, nullable: true }) p50: number | null;
  @ApiProperty({ type: Number, nullable: true }) p95: number | null;
}
