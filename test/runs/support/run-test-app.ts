import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { CoreModule } from '../../../src/core.module.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { RunQueueModule } from '../../../src/runs/run-queue.module.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';
import { TicketsModule } from '../../../src/tickets/tickets.module.js';
import { bootApp } from '../../support/test-app.js';
import { eventually } from './run-test-setup.js';

/** The whole server (AppModule), initialised (not listening), once its store and database answer. */
export async function bootRunApp(env: ServiceEnvironment): Promise<NestFastifyApplication> {
  const app = await bootApp(env);
  await waitReady(app);
  return app;
}

/**
 * Only what a claim needs (the real ClaimService, lifecycle, queue), without the run engine: lets
 * a test claim tickets for server processes without running a consumer of its own.
 */
export async function bootClaimContext(env: ServiceEnvironment): Promise<INestApplicationContext> {
  @Module({ imports: [CoreModule.register(env), RunQueueModule, TicketsModule] })
  class ClaimOnlyModule {}
  const app = await NestFactory.createApplicationContext(ClaimOnlyModule, { logger: ['error'] });
  await waitReady(app);
  return app;
}

async function waitReady(app: INestApplicationContext): Promise<void> {
  const db = app.get(DatabaseService);
  const store = app.get(StoreConnectionService);
  await eventually(async () => ((await db.open()).state === 'ready' && (await store.check()) ? true : undefined), 20_000, 'database and store');
}
