import type { INestApplication } from '@nestjs/common';
import * as swagger from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { BEARER_SCHEME, PERMISSIONS_EXTENSION, PUBLIC_EXTENSION } from '../auth/access-documentation.js';
import { applyApiDocs } from '../common/api-docs.js';
import { RELEASE } from '../common/release.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The OpenAPI document of the application's controllers and DTOs. Each operation's access comes
 * from its `@RequirePermissions`/`@Public()` (see access-documentation.ts); this only turns those
 * marks into what a reader sees: the permissions in the description (UIs do not render
 * extensions) and `security: []` on public routes (swagger drops an empty security list).
 * This module is what loads `@nestjs/swagger`; the decorators' metadata is applied here first.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  applyApiDocs(swagger);
  const config = new swagger.DocumentBuilder()
    .setTitle('pipeline-service')
    .setDescription('Webhooks in, pipeline runs out. Each operation names the permissions it needs (all of them) '
      + `in its description and in \`${PERMISSIONS_EXTENSION}\`; operations with \`security: []\` need no token.`)
    .setVersion(RELEASE)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'an access token of the configured authority (auth.authority)' }, BEARER_SCHEME)
    .build();
  const document = swagger.SwaggerModule.createDocument(app, config);
  for (const pathItem of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as (NonNullable<typeof pathItem[typeof method]> & Record<string, unknown>) | undefined;
      if (!operation) continue;
      const permissions = operation[PERMISSIONS_EXTENSION] as string[] | undefined;
      if (permissions) {
        operation.description = withLead(`Requires: ${permissions.join(' + ')}.`, operation.description);
      } else if (operation[PUBLIC_EXTENSION] === true) {
        delete operation[PUBLIC_EXTENSION];
        operation.security = [];
        operation.description = withLead('Public: no token needed.', operation.description);
      }
    }
  }
  return document;
}

function withLead(lead: string, description: string | undefined): string {
  return description ? `${lead}\n\n${description}` : lead;
}
