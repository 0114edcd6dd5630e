import { IsInt, IsString, Length, Matches, Min } from 'class-validator';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { ToInteger } from '../../common/request-validation.js';

/** `:name` of a secret: spelled like an environment variable, so `${NAME}` can reference it. */
export class SecretParams {
  @ApiProperty({ description: 'the secret name, as `${NAME}` references it', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 200, example: 'REPO_TOKEN' })
  @IsString({ message: 'name must be a string' }) @Length(1, 200, { message: 'name must be 1 to 200 characters' })
  @Matches(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'name must be a letter or underscore followed by letters, digits or underscores (like an environment variable)' })
  name!: string;
}

/** `PUT /api/secrets/:name`. */
@ApiSchema({ name: 'SecretValueBody' })
export class SecretValueBody {
  @ApiProperty({ description: 'the value; stored encrypted, never returned', minLength: 1, maxLength: 65536, writeOnly: true })
  @IsString({ message: 'value must be a string' }) @Length(1, 65536, { message: 'value must be 1 to 65536 characters' })
  value!: string;
}

export class ChangeParams {
  @ApiProperty({ description: 'the change record id', example: 12 })
  @ToInteger() @IsInt({ message: 'id must be a positive integer' }) @Min(1, { message: 'id must be a positive integer' })
  id!: number;
}
