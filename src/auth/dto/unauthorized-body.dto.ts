import { ApiProperty, ApiPropertyOptional, ApiSchema } from '../../common/api-docs.js';
import { TokenRefusalReason } from '../token-validator.js';
import type { UnauthorizedBody } from '../unauthorized.js';
import { TokenRefusalDetailDto } from './token-refusal-detail.dto.js';

/** OpenAPI schema of the 401 body (`UnauthorizedBody` stays the source of truth). */
@ApiSchema({ name: 'UnauthorizedBody' })
export class UnauthorizedBodyDto implements UnauthorizedBody {
  @ApiProperty({ enum: ['unauthorized', 'temporarily_unavailable'] }) error: string;
  @ApiProperty({ enum: Object.values(TokenRefusalReason) }) reason: TokenRefusalReason;
  @ApiProperty() message: string;
  @ApiProperty({ type: TokenRefusalDetailDto, nullable: true, description: 'which check refused: expected settings beside what the token carried' })
  detail: TokenRefusalDetailDto | null;
  @ApiPropertyOptional({ example: '/api/config/findings', description: 'where the cause is reported, when the refusal is the server\'s side' })
  findings?: string;
}
