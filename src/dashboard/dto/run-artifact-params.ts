import { IsUUID, Matches } from 'class-validator';
import { ApiProperty } from '../../common/api-docs.js';
import { ARTIFACT_NAME } from '../../runs/run-artifacts.service.js';

/** `:id/artifacts/:name`: a run id and an artifact name (anything else is a 400, never a database error). */
export class RunArtifactParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'id must be a run id (a UUID)' })
  id!: string;

  @ApiProperty({ pattern: ARTIFACT_NAME.source, example: 'report.sarif', description: 'the artifact\'s name' })
  @Matches(ARTIFACT_NAME, { message: 'name must be an artifact name: 1–100 characters of A–Z, a–z, 0–9, ".", "_" and "-", without ".."' })
  name!: string;
}
