import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { FindingDto } from '../../findings/dto/finding.dto.js';
import type { IdentityRefusal } from '../identity-refusal.js';
import { TokenRefusalDto } from './token-refusal.dto.js';

/** `GET /api/identity` when the token was refused (enforcement off) or nothing authenticates. */
@ApiSchema({ name: 'IdentityRefusal' })
export class IdentityRefusalDto implements IdentityRefusal {
  @ApiProperty({ enum: [false] }) authenticated: false;
  @ApiProperty({ type: TokenRefusalDto }) refusal: TokenRefusalDto;
  @ApiProperty({ type: [FindingDto] }) findings: FindingDto[];
}
