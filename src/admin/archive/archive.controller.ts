import { Readable } from 'node:stream';
import {
  Controller, Get, Header, HttpCode, HttpException, Post, Req, StreamableFile, UnsupportedMediaTypeException, UseFilters,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Permission } from '../../auth/permission.js';
import { attributionOf } from '../../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../../auth/request-auth.js';
import { RequirePermissions } from '../../auth/require-permissions.decorator.js';
import {
  ApiBody, ApiConflictResponse, ApiConsumes, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiServiceUnavailableResponse, ApiTags,
  ApiUnprocessableEntityResponse, ApiUnsupportedMediaTypeResponse,
} from '../../common/api-docs.js';
import { ErrorBodyDto } from '../../common/dto/error-body.dto.js';
import { ApiErrorFilter } from '../../dashboard/api-error.filter.js';
import { ARCHIVE_UPLOAD_TYPES } from './archive-body-parser.js';
import { ArchiveExporter } from './archive-export.service.js';
import { ARCHIVE_MEDIA_TYPE } from './archive-format.js';
import { ArchiveImporter, type RestoreResult } from './archive-import.service.js';
import { ArchiveRefused } from './archive-refused.js';
import { ArchiveRestoredDto } from './archive-restored.dto.js';

/** The whole-database archive (archive.export / archive.import): a backup, and a restore into an empty installation. */
@ApiTags('archive')
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/archive')
@UseFilters(ApiErrorFilter)
export class ArchiveController {
  constructor(
    private readonly exporter: ArchiveExporter,
    private readonly importer: ArchiveImporter,
  ) {}

  @Get()
  @RequirePermissions(Permission.ArchiveExport)
  @Header('X-Content-Type-Options', 'nosniff')
  @ApiOperation({
    summary: 'Download the archive',
    description: 'Every table of the database as one consistent snapshot, streamed as gzip\'d NDJSON (docs/api.md, "Whole-database archive"). '
      + 'It holds stored secrets (still sealed under SERVICE_SECRETS_KEY) and personal data: keep it as guarded as the database. '
      + 'A download that breaks off ends without the trailer, and a restore refuses it.',
  })
  @ApiOkResponse({
    description: 'the archive, as an attachment',
    content: { [ARCHIVE_MEDIA_TYPE]: { schema: { type: 'string', format: 'binary' } } },
    headers: { 'Content-Disposition': { description: 'attachment; filename="pipeline-service-archive-<time>.ndjson.gz"', schema: { type: 'string' } } },
  })
  async download(): Promise<StreamableFile> {
    const { header, stream } = await this.exporter.open();
    const time = header.created_at.replace(/[:.]/g, '-');
    return new StreamableFile(stream, { type: ARCHIVE_MEDIA_TYPE, disposition: `attachment; filename="pipeline-service-archive-${time}.ndjson.gz"` });
  }

  @Post()
  @HttpCode(200)
  @RequirePermissions(Permission.ArchiveImport)
  @ApiOperation({
    summary: 'Restore an archive',
    description: 'Restores an archive of the same schema into this installation, which must be empty (a fresh, migrated database). '
      + 'All or nothing: a refused, damaged or truncated archive leaves the database as it was. Every replica then re-reads configuration and access.',
  })
  @ApiConsumes(...ARCHIVE_UPLOAD_TYPES)
  @ApiBody({ schema: { type: 'string', format: 'binary' }, description: 'the bytes `GET /api/archive` gave' })
  @ApiOkResponse({ type: ArchiveRestoredDto, description: 'restored: the archive\'s schema and time, rows per table, and the change record' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'code not_empty, with `tables`: the ones holding rows' })
  @ApiUnprocessableEntityResponse({
    type: ErrorBodyDto,
    description: 'code unsupported_format, unsupported_version, schema_mismatch, corrupt, truncated, count_mismatch or rows_refused; nothing was applied',
  })
  @ApiPayloadTooLargeResponse({ type: ErrorBodyDto, description: 'more than 4 GiB' })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorBodyDto, description: 'not sent as application/gzip or application/octet-stream' })
  async restore(@Req() request: FastifyRequest, @CurrentAuth() auth: RequestAuth): Promise<RestoreResult> {
    if (!(request.body instanceof Readable)) {
      throw new UnsupportedMediaTypeException({ error: `send the archive as ${ARCHIVE_MEDIA_TYPE}: the bytes GET /api/archive gave` });
    }
    try {
      return await this.importer.restore(request.body, attributionOf(auth.principal));
    } catch (error) {
      if (error instanceof ArchiveRefused) throw new HttpException(error.body, error.status);
      throw error;
    }
  }
}
