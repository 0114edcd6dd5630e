import {
  Body, Controller, Get, HttpCode, PayloadTooLargeException, Post, type RawBodyRequest, Req, Res, UnprocessableEntityException, UnsupportedMediaTypeException,
  UseFilters,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Permission } from '../auth/permission.js';
import { attributionOf } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import {
  ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiServiceUnavailableResponse, ApiTags,
  ApiUnprocessableEntityResponse, ApiUnsupportedMediaTypeResponse,
} from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { CONFIG_IMPORT_BODY_LIMIT, exportFileName, renderConfigDocument, YAML_CONTENT_TYPES } from '../exchange/config-document.js';
import { parseConfigText } from '../exchange/config-document.reader.js';
import { ConfigExportService } from '../exchange/config-export.service.js';
import { ConfigImportService } from '../exchange/config-import.service.js';
import { ConfigImportedDto } from './dto/import-responses.js';

const JSON_TYPE = 'application/json';
const ACCEPTED_TYPES: readonly string[] = [...YAML_CONTENT_TYPES, JSON_TYPE];
const DOCUMENT = 'the configuration document: `{format: pipeline-service-config, version: 1, exported_at, exported_by, configuration, access: {claim_names, people, groups, roles}, secrets: [{name, source, used_by}]}`';

/**
 * Configuration export and import (spec: each needs a config and a secrets permission together,
 * since the document names every secret the configuration references). The document carries
 * references, never values.
 */
@ApiTags('config')
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/config')
@UseFilters(ApiErrorFilter)
export class ConfigExchangeController {
  constructor(
    private readonly exporter: ConfigExportService,
    private readonly importer: ConfigImportService,
  ) {}

  @Get('export')
  @ApiOperation({
    summary: 'Export the configuration',
    description: 'One YAML document: the effective configuration (bootstrap file with stored settings over it, `${NAME}` references as written, without `auth` and `secrets`), the access records (people, groups, custom roles, claim names; never observations) and the names of the secrets referenced or stored (never values).',
  })
  @ApiOkResponse({ description: `${DOCUMENT}, as an attachment`, content: { 'application/yaml': { schema: { type: 'string' } } } })
  @RequirePermissions(Permission.ConfigExport, Permission.SecretsRead)
  async export(@CurrentAuth() auth: RequestAuth, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const document = await this.exporter.export(attributionOf(auth.principal));
    reply.header('content-type', 'application/yaml; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="${exportFileName(document.exported_at)}"`);
    return renderConfigDocument(document);
  }

  @Post('import')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import a configuration',
    description: 'Validates the whole document first (format and version, the configuration as the loader reads it here, no secret value where a `${NAME}` belongs, the access records under the rules of a save); any problem refuses all of it. Then replaces the stored settings and the access records in one transaction, recorded as one change (`config.import`, not revertible). A `${NAME}` that resolves to nothing on this installation refuses nothing: it counts as unconfigured, and the answer names it with the keys using it (`unresolved`), so its secret can be set next.',
  })
  @ApiConsumes(...ACCEPTED_TYPES)
  @ApiBody({ description: DOCUMENT, schema: { type: 'object' } })
  @ApiOkResponse({ type: ConfigImportedDto, description: 'imported: what now stands, the change record, the warnings, and the references left unresolved here' })
  @ApiUnprocessableEntityResponse({ description: '`{error: "invalid_import", problems: [{path, error}, …]}`: every problem found; nothing was applied' })
  @ApiPayloadTooLargeResponse({ type: ErrorBodyDto, description: `a body over ${CONFIG_IMPORT_BODY_LIMIT} bytes` })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorBodyDto, description: `a body that is not ${ACCEPTED_TYPES.join(', ')}` })
  @RequirePermissions(Permission.ConfigImport, Permission.SecretsWrite)
  async import(@Body() body: unknown, @Req() req: RawBodyRequest<FastifyRequest>, @CurrentAuth() auth: RequestAuth): Promise<ConfigImportedDto> {
    const result = await this.importer.import(this.documentOf(body, req), attributionOf(auth.principal), auth.principal);
    if (result.outcome === 'invalid') throw new UnprocessableEntityException({ error: 'invalid_import', problems: result.problems });
    const { people, groups, roles } = result.access;
    return {
      imported: { settings: Object.keys(result.settings).sort(), people: people.length, groups: Object.keys(groups).length, roles: Object.keys(roles).length },
      change: result.changeId,
      warnings: result.warnings,
      unresolved: result.unresolved,
    };
  }

  /** YAML arrives as bytes (server.ts registers its types without a parser), JSON already parsed. */
  private documentOf(body: unknown, req: RawBodyRequest<FastifyRequest>): unknown {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!ACCEPTED_TYPES.includes(type)) throw new UnsupportedMediaTypeException({ error: `send the document as ${ACCEPTED_TYPES.join(', ')}` });
    if ((req.rawBody?.length ?? 0) > CONFIG_IMPORT_BODY_LIMIT) throw new PayloadTooLargeException({ error: `the document is over ${CONFIG_IMPORT_BODY_LIMIT} bytes` });
    if (type === JSON_TYPE) return body;
    const parsed = parseConfigText(Buffer.isBuffer(body) ? body.toString('utf8') : '');
    if ('problem' in parsed) throw new UnprocessableEntityException({ error: 'invalid_import', problems: [parsed.problem] });
    return parsed.value;
  }
}
