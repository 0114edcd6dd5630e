import { errorCodes, type FastifyInstance } from 'fastify';
import { MAX_ARCHIVE_BYTES } from './archive-import.service.js';

export const ARCHIVE_ROUTE = '/api/archive';
/** What `POST /api/archive` accepts: the bytes `GET /api/archive` gave, under any of the names tools send them as. */
export const ARCHIVE_UPLOAD_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];

/**
 * Hands the archive route its request body as the raw stream, unread, so a restore reads it as it
 * arrives instead of buffering gigabytes (Fastify's bodyLimit does not apply to a stream; the
 * restore counts the bytes itself, and a declared Content-Length over the limit is refused here).
 * Every other route refuses these types exactly as Fastify did without this parser (415): the
 * webhook routes keep their JSON and form parsers, which keep the raw bytes signatures are over.
 */
export function registerArchiveBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(ARCHIVE_UPLOAD_TYPES, (request, payload, done) => {
    if (request.routeOptions.url !== ARCHIVE_ROUTE) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
    } else if (Number(request.headers['content-length'] ?? 0) > MAX_ARCHIVE_BYTES) {
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
    } else {
      done(null, payload);
    }
  });
}
