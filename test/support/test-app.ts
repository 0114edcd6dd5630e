import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppModuleOptions } from '../../src/app.module.js';
import type { ServiceEnvironment } from '../../src/config/environment.js';
import { createServer } from '../../src/server.js';
import { eventually } from './eventually.js';
import type { HealthBody } from './response-bodies.js';

/**
 * The real AppModule on Fastify (`createServer`, as main.ts builds it), initialised and with
 * Fastify ready, but not listening: requests go through `app.inject()`.
 */
export async function bootApp(env: ServiceEnvironment, options: AppModuleOptions = {}): Promise<NestFastifyApplication> {
  const app = await createServer(env, options);
  try {
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** Boots, runs `work`, and always closes (workers, connections, the embedded database). */
export async function withApp<T>(env: ServiceEnvironment, work: (app: NestFastifyApplication) => Promise<T>): Promise<T> {
  const app = await bootApp(env);
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

/** GET through `inject` → status and parsed JSON body. */
export async function getJson<T>(app: NestFastifyApplication, url: string): Promise<{ status: number; body: T }> {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() as T };
}

/** Waits for the startup checks to finish (preflight no longer `pending`), then returns that /health. */
export function preflightDone(app: NestFastifyApplication, timeoutMs = 20_000): Promise<HealthBody> {
  return eventually(async () => {
    const { body } = await getJson<HealthBody>(app, '/health');
    return body.preflight.status === 'pending' ? undefined : body;
  }, timeoutMs, 'the startup checks to finish');
}
