import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { stringify } from 'yaml';
import { AppModule } from '../../../src/app.module.js';
import { migrate } from '../../../src/cli/migrate.command.js';
import { type ServiceEnvironment, readEnvironment } from '../../../src/config/environment.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { PreflightService } from '../../../src/health/preflight.service.js';
import { createServer } from '../../../src/server.js';

/**
 * Auth test support (test/support did not exist when these tests were written): a fresh, uniquely
 * named, migrated database on the machine's PostgreSQL, a temp `service.yml`, and the real server
 * (AppModule on Fastify through `createServer`). No Redis: KVSTORE_URL stays unset, so the queue
 * subsystems are `disabled`, which nothing here depends on.
 */
export const PG_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

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
  const databaseName = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${databaseName}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${databaseName}`;
  const databaseUrl = url.toString();
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const configPath = join(dir, 'service.yml');
  const writeConfig = (config: Record<string, unknown>): void => writeFileSync(configPath, stringify(config));
  writeConfig({ sandbox: { backend: 'in-process' } });
  const environment = (variables: Record<string, string> = {}): ServiceEnvironment =>
    readEnvironment({
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      SERVICE_CONFIG: configPath,
      SERVICE_DATA_DIR: dir,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...variables,
    });
  await migrate(environment());
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    databaseName, databaseUrl, dir, configPath, db, writeConfig, environment,
    async cleanup() {
      await db.end().catch(() => undefined);
      await adminQuery(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
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

/** Polls `probe` until it returns something other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
