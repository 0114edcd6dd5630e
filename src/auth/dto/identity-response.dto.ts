import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { FindingDto } from '../../findings/dto/finding.dto.js';
import type { IdentityResponse } from '../principal.js';

/** `GET /api/identity` for a validated caller. */
@ApiSchema({ name: 'IdentityResponse' })
export class IdentityResponseDto implements IdentityResponse {
  @ApiProperty({ enum: [true] }) authenticated: boolean;
  @ApiProperty() subject: string;
  @ApiProperty() issuer: string;
  @ApiProperty() roleClaim: string;
  @ApiProperty() groupClaim: string;
  @ApiProperty({ type: [String] }) roleClaimValues: string[];
  @ApiProperty({ type: [String] }) groupClaimValues: string[];
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ type: [String] }) permissions: string[];
  @ApiProperty({ type: [FindingDto] }) findings: FindingDto[];
}
