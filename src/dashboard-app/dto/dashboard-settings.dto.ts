import { ApiProperty } from '../../common/api-docs.js';

export class DashboardSettingsDto {
  @ApiProperty({ type: String, nullable: true, description: 'the token authority the app signs in at (SERVICE_AUTH_AUTHORITY); null: no sign-in' })
  authority!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "the app's public client id at the authority (SERVICE_AUTH_CLIENT_ID)" })
  clientId!: string | null;

  @ApiProperty({ description: 'scopes the app asks for, space-separated (SERVICE_AUTH_SCOPES)' })
  scopes!: string;

  @ApiProperty({ description: 'the sign-in return path registered at the authority (SERVICE_AUTH_REDIRECT_PATH)' })
  redirectPath!: string;

  @ApiProperty({ type: String, nullable: true, description: "the server's audience: the resource its tokens must name" })
  audience!: string | null;

  @ApiProperty({ description: "the server's build id; a tab of another build offers a reload" })
  build!: string;
}
