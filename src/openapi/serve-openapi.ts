import type { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { buildOpenApiDocument } from './openapi-document.js';

export const DOCS_PATH = '/api/docs';
export const OPENAPI_JSON_PATH = '/api/docs/openapi.json';

/**
 * Serves Swagger UI at `/api/docs` and the document at `/api/docs/openapi.json`. Both are plain
 * Fastify routes, outside Nest's router and so outside the token guard: public on purpose (the
 * document describes routes and permissions, never configuration or secrets). The document is
 * built on the first request and kept (swagger builds it once from a factory), not at boot.
 */
export function serveOpenApi(app: INestApplication): void {
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'pipeline-service API',
  });
}
