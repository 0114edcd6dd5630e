import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { RunEventPage } from '../run-events.reader.js';
import { RunEventDto } from './run-event.dto.js';

@ApiSchema({ name: 'RunEventPage' })
export class RunEventPageDto implements RunEventPage {
  @ApiProperty({ type: [RunEventDto], description: 'in seq order' }) items: RunEventDto[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'the `after` of the next page; null on the last page' })
  nextAfter: number | null;
}
