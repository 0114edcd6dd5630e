import { IsUUID } from 'class-validator';
import { ApiProperty } from '../../common/api-docs.js';

/** `:id` of the run routes: a run id is a UUID (anything else is a 400, never a database error). */
export class RunIdParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'id must be a run id (a UUID)' })
  id!: string;
}
