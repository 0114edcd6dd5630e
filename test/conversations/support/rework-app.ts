import { type INestApplicationContext, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigModule } from '../../../src/config/config.module.js';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { ReworkModule } from '../../../src/conversations/rework/rework.module.js';
import { DatabaseModule } from '../../../src/database/database.module.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';
import { StoreModule } from '../../../src/store/store.module.js';
import { eventually } from '../../support/eventually.js';

/** Every warning and error the application logs, for tests about what is logged. */
export class RecordingLogger implements LoggerService {
  readonly lines: { level: string; message: string }[] = [];
  log(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown): void {
    this.lines.push({ level: 'warn', message: String(message) });
  }
  error(message: unknown): void {
    this.lines.push({ level: 'error', message: String(message) });
  }
}

/**
 * The rework module on the real configuration, database and store modules (no server, no run
 * engine); waits for the database when DATABASE_URL is set, and for the store when one is.
 */
export async function bootRework(env: ServiceEnvironment, logger: LoggerService = new RecordingLogger()): Promise<INestApplicationContext> {
  @Module({ imports: [ConfigModule.forEnvironment(env), StoreModule, DatabaseModule, ReworkModule.withOptions({ http: { sleep: async () => {}, maxAttempts: 2 } })] })
  class ReworkTestModule {}
  const app = await NestFactory.createApplicationContext(ReworkTestModule, { logger });
  app.enableShutdownHooks();
  const db = app.get(DatabaseService);
  const store = app.get(StoreConnectionService);
  await eventually(async () => {
    // Without DATABASE_URL nothing opens the (embedded) database: the vote memory needs none.
    const dbReady = env.databaseUrl === null || (await db.open()).state === 'ready';
    return dbReady && (!store.isConfigured || (await store.check())) ? true : undefined;
  }, 20_000, 'database and store');
  return app;
}
