import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppModule, type AppModuleOptions } from './app.module.js';
import type { ServiceEnvironment } from './config/environment.js';
import { serveDashboard } from './dashboard-app/serve-dashboard.js';
import { CONFIG_IMPORT_BODY_LIMIT, YAML_CONTENT_TYPES } from './exchange/config-document.js';
import { serveOpenApi } from './openapi/serve-openapi.js';
import { webhookTolerantJsonParser } from './webhooks/webhook-body-parser.js';

/** Request bodies above this are refused with 413 (webhook payloads are far smaller). */
const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/** Builds the application (not yet listening): used by main.ts and by integration tests (which may pass test-only `options`). */
export async function createServer(env: ServiceEnvironment, options: AppModuleOptions = {}): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(env, options),
    new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES }),
    { bufferLogs: true, rawBody: true },
  );
  app.useLogger(app.get(Logger));
  // Raw bytes kept (signatures are over them); on webhook routes a JSON error waits for the signature check.
  app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT_BYTES }, webhookTolerantJsonParser(app.getHttpAdapter().getInstance()));
  // A configuration import: kept as bytes (no parser), read as YAML by its route, so a syntax error is one of its problems.
  app.useBodyParser([...YAML_CONTENT_TYPES], { bodyLimit: CONFIG_IMPORT_BODY_LIMIT });
  serveOpenApi(app);
  await serveDashboard(app);
  app.enableShutdownHooks();
  return app;
}
