import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DocsPages } from './docs-pages.js';

export const DOCS_PATH = '/api/docs';
export const OPENAPI_JSON_PATH = '/api/docs/openapi.json';

/**
 * Serves Swagger UI at `/api/docs` and the document at `/api/docs/openapi.json`. Both are plain
 * Fastify routes, outside Nest's router and so outside the token guard: public on purpose (the
 * document describes routes and permissions, never configuration or secrets). Only the routes
 * are registered at boot: `@nestjs/swagger` and the document are loaded on the first request and
 * kept (see api-docs.ts for why).
 */
export function serveOpenApi(app: INestApplication): void {
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  let pages: Promise<DocsPages> | null = null;
  const docs = (): Promise<DocsPages> => (pages ??= import('./docs-pages.js').then(({ DocsPages }) => new DocsPages(app, DOCS_PATH)));

  const html = async (_: unknown, reply: FastifyReply) => reply.type('text/html; charset=utf-8').send((await docs()).html);
  fastify.get(DOCS_PATH, html);
  fastify.get(`${DOCS_PATH}/`, html);
  fastify.get(`${DOCS_PATH}/index.html`, html);
  fastify.get(OPENAPI_JSON_PATH, async (_, reply) => reply.type('application/json; charset=utf-8').send((await docs()).json));
  fastify.get(`${DOCS_PATH}/swagger-ui-init.js`, async (_, reply) => reply.type('application/javascript; charset=utf-8').send((await docs()).initScript));
  fastify.get<{ Params: { asset: string } }>(`${DOCS_PATH}/:asset`, async (request, reply) => {
    const asset = await (await docs()).asset(request.params.asset);
    if (!asset) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no such file under ${DOCS_PATH}` });
    return reply.type(asset.type).header('cache-control', 'public, max-age=86400').send(asset.body);
  });
}
