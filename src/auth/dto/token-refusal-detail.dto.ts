import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { TokenRefusalDetail, TokenVersion } from '../token-validator.js';

/** OpenAPI schema of `TokenRefusalDetail` (the interface stays the source of truth). */
@ApiSchema({ name: 'TokenRefusalDetail' })
export class TokenRefusalDetailDto implements TokenRefusalDetail {
  @ApiProperty({ type: String, nullable: true }) expectedAuthority: string | null;
  @ApiProperty({ type: String, nullable: true }) expectedAudience: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the issuer the authority publishes; null when it was never reached' })
  expectedIssuer: string | null;
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], nullable: true, description: 'unverified `aud` of the presented token' })
  presentedAudience: string | string[] | null;
  @ApiProperty({ type: String, nullable: true }) presentedIssuer: string | null;
  @ApiProperty({ type: String, enum: ['1.0', '2.0'], nullable: true }) presentedVersion: TokenVersion | null;
  @ApiProperty({ description: 'one sentence on why' }) message: string;
}
