import { ApiProperty, ApiSchema } from '../api-docs.js';
import type { ErrorBody } from '../error-body.js';

/** OpenAPI schema of `ErrorBody` (400, 404 and 409 answers of the API). */
@ApiSchema({ name: 'ErrorBody' })
export class ErrorBodyDto implements ErrorBody {
  @ApiProperty({ example: 'limit must be an integer from 1 to 200' }) error: string;
}
