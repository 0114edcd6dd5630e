import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { RestoreResult } from './archive-import.service.js';

/** The JSON answer of POST /api/archive (the download is a gzip stream, described where it is served). */

@ApiSchema({ name: 'ArchiveRestored' })
export class ArchiveRestoredDto implements RestoreResult {
  @ApiProperty({ description: 'the migration the archive was taken at (this installation\'s own)' }) schema: string;
  @ApiProperty({ description: 'when the archive was taken, as its header says (ISO 8601 in an archive this service wrote)', example: '2026-01-02T03:04:05.678Z' })
  createdAt: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'rows restored per table, as the archive\'s trailer counts them' })
  rows: Record<string, number>;
  @ApiProperty({ type: 'integer', description: 'the change record of the restore (`archive.restore`)' }) change: number;
}
