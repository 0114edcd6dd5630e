import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '../../common/api-docs.js';
import { ALL_PLATFORMS, type Platform } from '../../platforms/platform.js';
import { ConnectionKind } from '../connection-kind.js';

@ApiSchema({ name: 'DiagnosticsError' })
export class ConnectionErrorDto {
  @ApiProperty({ format: 'date-time', description: 'when it failed' }) at: string;
  @ApiProperty({ description: 'why, in one line; scrubbed of every secret the service knows' }) message: string;
}

@ApiSchema({ name: 'DiagnosticsConnection' })
export class ConnectionDto {
  @ApiProperty({ description: 'stable and unique: `tracker:<project>`, `repository:<project>/<repo>`, `model:<provider>` (a project\'s own endpoint: `model:<provider>:<project>`), `store`, `database`, `sandbox`, `authority`', example: 'tracker:shop' })
  name: string;
  @ApiProperty({ enum: Object.values(ConnectionKind) }) kind: ConnectionKind;
  @ApiProperty({ type: String, nullable: true, description: 'the project it belongs to; null for the server\'s own connections' }) project: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'where it goes, as a URL without credentials; null when not known without calling it (the embedded database, the in-process sandbox)' })
  target: string | null;
  @ApiProperty({ description: 'false: the configuration lacks what it needs (a probe says what)' }) configured: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'the last time it worked, as this replica saw it in normal work or a probe' })
  lastOk: string | null;
  @ApiProperty({ type: ConnectionErrorDto, nullable: true, description: 'the last failure this replica saw' }) lastError: ConnectionErrorDto | null;
}

@ApiSchema({ name: 'DiagnosticsWebhookDelivery' })
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ description: 'the trigger log\'s outcome (Claimed, AlreadyClaimed, Rejected, Failed, filtered, invalid, unauthorized, duplicate, skipped)', example: 'Claimed' })
  outcome: string;
}

@ApiSchema({ name: 'DiagnosticsWebhook' })
export class WebhookDto {
  @ApiProperty({ enum: ALL_PLATFORMS }) platform: Platform;
  @ApiProperty({ description: 'a webhook secret is configured, so deliveries are verified' }) secretConfigured: boolean;
  @ApiProperty({ type: WebhookDeliveryDto, nullable: true, description: 'the newest delivery in the trigger log; null when none (or the database is away)' })
  lastDelivery: WebhookDeliveryDto | null;
}

@ApiSchema({ name: 'DiagnosticsSnapshot' })
export class DiagnosticsSnapshotDto {
  @ApiProperty({ type: [ConnectionDto] }) connections: ConnectionDto[];
  @ApiProperty({ type: [WebhookDto] }) webhooks: WebhookDto[];
}

/** `POST /api/diagnostics/probe`. */
@ApiSchema({ name: 'DiagnosticsProbeBody' })
export class ProbeBody {
  @ApiProperty({ description: 'a connection name from the snapshot', example: 'tracker:shop', minLength: 1, maxLength: 500 })
  @IsString({ message: 'name must be a string' }) @Length(1, 500, { message: 'name must be 1 to 500 characters' })
  name!: string;
}

@ApiSchema({ name: 'DiagnosticsProbeResult' })
export class ProbeResultDto {
  @ApiProperty() name: string;
  @ApiProperty() ok: boolean;
  @ApiProperty({ description: 'how long the round trip took (to the failure or the timeout when it failed)' }) latencyMs: number;
  @ApiProperty({ type: String, nullable: true, description: 'why it failed; scrubbed of every secret the service knows' }) error: string | null;
}

/** `POST /api/diagnostics/probe-candidate`: a connection not saved yet. */
@ApiSchema({ name: 'DiagnosticsCandidateProbeBody' })
export class CandidateProbeBody {
  @ApiProperty({ enum: ['tracker', 'repository'], description: 'a project\'s tracker, or one of its repositories' })
  @IsIn(['tracker', 'repository'], { message: 'kind must be tracker or repository' })
  kind!: 'tracker' | 'repository';

  @ApiProperty({ enum: ALL_PLATFORMS })
  @IsIn(ALL_PLATFORMS as Platform[], { message: `platform must be one of ${ALL_PLATFORMS.join(', ')}` })
  platform!: Platform;

  @ApiProperty({ description: 'GitHub, GitLab, Azure DevOps repository: its web URL; Azure DevOps tracker: the organization URL; Jira: the site URL', example: 'https://github.com/acme/shop', maxLength: 2000 })
  @IsString({ message: 'url must be a string' }) @Length(1, 2000, { message: 'url must be 1 to 2000 characters' })
  url!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'the host\'s API base when it is not the platform\'s public one (GitHub Enterprise, a self-hosted GitLab, a stand-in)', maxLength: 2000 })
  @IsOptional() @IsString({ message: 'api_url must be a string' }) @Length(1, 2000, { message: 'api_url must be 1 to 2000 characters' })
  api_url?: string | null;

  @ApiProperty({ description: 'the credential to try (Jira: `user:api-token`); used for this one request, never stored, logged or answered', maxLength: 65536, writeOnly: true })
  @IsString({ message: 'token must be a string' }) @Length(1, 65536, { message: 'token must be 1 to 65536 characters' })
  token!: string;
}

@ApiSchema({ name: 'DiagnosticsCandidateProbeResult' })
export class CandidateProbeResultDto {
  @ApiProperty() ok: boolean;
  @ApiProperty({ description: 'how long the round trip took (to the failure or the timeout when it failed)' }) latencyMs: number;
  @ApiProperty({ type: String, nullable: true, description: 'the URL the probe read, without credentials; null when the description is not usable' }) target: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'why it failed (the host\'s answer, or what is missing); scrubbed of the token and every secret the service knows' }) error: string | null;
}
