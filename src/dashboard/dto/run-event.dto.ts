import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { RunEventView } from '../run-events.reader.js';

@ApiSchema({ name: 'RunEvent' })
export class RunEventDto implements RunEventView {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'the event\'s number within its run, in order' }) seq: number;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ example: 'stdout' }) kind: string;
  @ApiProperty({ type: String, nullable: true, description: 'the sandbox (repository) it came from' }) sandbox: string | null;
  @ApiProperty() text: string;
}
