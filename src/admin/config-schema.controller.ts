import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator.js';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/api-docs.js';
import { CONFIG_SCHEMA_FILE } from '../config/config-schema-file.js';
import { PACKAGE_ROOT } from '../paths.js';

/**
 * The JSON Schema of service.yml, as shipped in config/service.schema.json (generated from the
 * loader's key tables). Public: it describes the file's keys, like config/service.example.yml,
 * and holds no value of this installation; an editor fetches it without a token.
 */
@ApiTags('config')
@Controller('api/config/schema')
export class ConfigSchemaController {
  /** Read once: the file ships with the release and does not change under a running server. */
  private readonly schema: Record<string, unknown> = JSON.parse(readFileSync(join(PACKAGE_ROOT, CONFIG_SCHEMA_FILE), 'utf8')) as Record<string, unknown>;

  @Public()
  @Get()
  @ApiOperation({
    summary: 'JSON Schema of service.yml',
    description: 'The JSON Schema (draft-07) of the bootstrap file, generated from the definitions the loader validates with, each key described: '
      + 'point an editor\'s YAML extension at it (`# yaml-language-server: $schema=<this URL>`) to complete and check keys. The same document '
      + 'is shipped as config/service.schema.json.',
  })
  @ApiOkResponse({ description: 'the JSON Schema document', schema: { type: 'object', additionalProperties: true } })
  schemaDocument(): Record<string, unknown> {
    return this.schema;
  }
}
