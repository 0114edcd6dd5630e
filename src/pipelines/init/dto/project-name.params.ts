import { IsString, Length } from 'class-validator';
import { ApiProperty } from '../../../common/api-docs.js';

/** `:name` of the project routes: a configured project's name. */
export class ProjectNameParams {
  @ApiProperty({ example: 'shop' })
  @IsString()
  @Length(1, 200, { message: 'name must be a project name' })
  name!: string;
}
