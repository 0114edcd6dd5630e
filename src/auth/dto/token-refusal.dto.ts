import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { IdentityRefusal } from '../identity-refusal.js';
import { TokenRefusalReason } from '../token-validator.js';
import { TokenRefusalDetailDto } from './token-refusal-detail.dto.js';

type IdentityRefusalReason = IdentityRefusal['refusal'];

/** Why `GET /api/identity` shows no identity. */
@ApiSchema({ name: 'TokenRefusal' })
export class TokenRefusalDto implements IdentityRefusalReason {
  @ApiProperty({ enum: Object.values(TokenRefusalReason) }) reason: TokenRefusalReason;
  @ApiProperty({ type: TokenRefusalDetailDto, nullable: true }) detail: TokenRefusalDetailDto | null;
  @ApiProperty() message: string;
}
