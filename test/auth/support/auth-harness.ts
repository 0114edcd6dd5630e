import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { AppModule } from '../../../src/app.module.js';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { testEnvironment } from '../../support/test-env.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { PreflightService } from '../../../src/health/preflight.service.js';
import { createServer } from '../../../src/server.js';
import { eventually } from '../../support/eventually.js';
import { createTestDatabase } from '../../support/test-database.js';
import { tempConfig } from '../../support/temp-config.js';

export { eventually };

/**
 * Auth test support: a fresh migrated database, a temp `service.yml`, and the real server
 * (AppModule on Fastify through `createServer`). No Redis: KVSTORE_URL stays unset, so the queue
 * subsystems are `disabled`, which nothing here depends on.
 */
export interface AuthBench {
  databaseName: string;
  databaseUrl: string;
  dir: string;
  configPath: string;
  /** A pool on the bench database, for inserting grants and reading observations. */
  db: pg.Pool;
  /** Rewrites service.yml (the next boot reads it). */
  writeConfig(config: Record<string, unknown>): void;
  /** The server's environment: the bench's database and file, plus `variables`. */
  environment(variables?: Record<string, string>): ServiceEnvironment;
  cleanup(): Promise<void>;
}

export async function createAuthBench(prefix: string): Promise<AuthBench> {
  const database = await createTestDatabase(prefix);
  const config = tempConfig(prefix, { sandbox: { backend: 'in-process' } });
  const environment = (variables: Record<string, string> = {}): ServiceEnvironment =>
    testEnvironment({ SERVICE_CONFIG: config.path, SERVICE_DATA_DIR: config.dir, DATABASE_URL: database.url, ...variables });
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  return {
    databaseName: database.name, databaseUrl: database.url, dir: config.dir, configPath: config.path, db,
    writeConfig: config.write, environment,
    async cleanup() {
      await db.end().catch(() => undefined);
      await database.drop().catch(() => undefined);
      config.remove();
    },
  };
}

export interface BootOptions {
  /**
   * Extra controllers mounted beside the real application (same global guard, same adapter):
   * lets a test reach routes that need permissions no production route needs yet.
   */
  controllers?: Type[];
  /** Wait for the startup preflight run to complete (default true). */
  preflight?: boolean;
}

/** The real server, initialised (not listening), once its database is ready and the preflight ran. */
export async function bootApp(env: ServiceEnvironment, options: BootOptions = {}): Promise<NestFastifyApplication> {
  const app = options.controllers?.length ? await createServerWith(env, options.controllers) : await createServer(env);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const db = app.get(DatabaseService);
  await eventually(async () => ((await db.open()).state === 'ready' ? true : undefined), 20_000, 'database ready');
  if (options.preflight !== false) {
    const preflight = app.get(PreflightService);
    await eventually(async () => (preflight.isComplete ? true : undefined), 20_000, 'preflight complete');
  }
  return app;
}

/** `createServer(env)` with extra controllers: the same AppModule, adapter and logger, one more module around it. */
async function createServerWith(env: ServiceEnvironment, controllers: Type[]): Promise<NestFastifyApplication> {
  const { NestFactory } = await import('@nestjs/core');
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  const { Logger } = await import('nestjs-pino');
  class TestRoutesModule {}
  const app = await NestFactory.create<NestFastifyApplication>(
    { module: TestRoutesModule, imports: [AppModule.register(env)], controllers },
    new FastifyAdapter(),
    { bufferLogs: true, rawBody: true },
  );
  app.useLogger(app.get(Logger));
  return app;
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
