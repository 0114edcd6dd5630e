import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConfigService } from '../config/config.service.js';
import { BuildMismatchService } from './build-mismatch.service.js';
import { DashboardBundleRef } from './dashboard-bundle.ref.js';
import { DASHBOARD_BUILD_HEADER } from './dashboard-build.js';

/** Paths that are never the app: a request there that no route answers stays a JSON 404. */
const SERVER_PREFIXES = ['/api', '/hub', '/webhook', '/chat', '/health', '/metrics', '/assets'];
const YEAR_SECONDS = 365 * 24 * 3600;

/**
 * Serves the dashboard on the API's listener: hashed files under `/assets/` cached for a year
 * (immutable), a few top-level files (the icon), and the app's `index.html` for any other
 * `GET` that accepts HTML, so deep links and reloads work. The page gets a strict
 * content-security policy: scripts and styles from this origin only, no inline code; the
 * authority's origin is allowed for the sign-in's token calls.
 */
export async function serveDashboard(app: NestFastifyApplication): Promise<void> {
  const bundle = app.get(DashboardBundleRef);
  const config = app.get(ConfigService);
  const builds = app.get(BuildMismatchService);
  builds.serve(bundle.build);
  const fastify = app.getHttpAdapter().getInstance();

  fastify.addHook('onRequest', async (request, reply) => {
    const tabBuild = request.headers[DASHBOARD_BUILD_HEADER];
    if (typeof tabBuild !== 'string') return;
    builds.observe(tabBuild);
    void reply.header(DASHBOARD_BUILD_HEADER, bundle.build);
  });

  if (!bundle.dir) return;
  const dir = bundle.dir;
  await app.register(fastifyStatic, { root: join(dir, 'assets'), prefix: '/assets/', maxAge: YEAR_SECONDS * 1000, immutable: true, index: false });
  const topLevel = new Set(readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && e.name !== 'index.html' && e.name !== 'build.json').map((e) => e.name));
  const indexHtml = readFileSync(join(dir, 'index.html'));

  const page = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const path = request.url.split('?', 1)[0] ?? '/';
    if (SERVER_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) return reply.callNotFound();
    const file = path.slice(1);
    if (topLevel.has(file) && existsSync(join(dir, file))) return reply.sendFile(file, dir, { maxAge: 24 * 3600 * 1000, immutable: false });
    if (!acceptsHtml(request)) return reply.callNotFound();
    await reply.helmet({ contentSecurityPolicy: { useDefaults: false, directives: directivesFor(config.config.auth?.authority ?? null) } });
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  };
  // Helmet's hooks run on every request of the context it is registered in: only the page needs them.
  await fastify.register(async (pages) => {
    await pages.register(helmet, { global: false });
    pages.get('/', page);
    pages.get('/*', page);
  });
}

function acceptsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html') || accept.includes('*/*');
}

/** The page's policy: nothing inline, nothing from elsewhere but the authority's token calls. */
export function directivesFor(authority: string | null): Record<string, string[]> {
  const connect = ["'self'"];
  if (authority) {
    try {
      connect.push(new URL(authority).origin);
    } catch {
      // A malformed authority is a configuration finding; the page then signs in nowhere.
    }
  }
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': connect,
    'frame-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
  };
}
