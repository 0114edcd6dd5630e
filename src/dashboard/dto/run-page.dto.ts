import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { RunDto } from '../../runs/resource/dto/run.dto.js';
import type { RunPage } from '../../runs/resource/run-reader.service.js';

@ApiSchema({ name: 'RunPage' })
export class RunPageDto implements RunPage {
  @ApiProperty({ type: [RunDto], description: 'newest first' }) items: RunDto[];
  @ApiProperty({ type: 'integer', description: 'runs matching the filters, over all pages' }) total: number;
}
