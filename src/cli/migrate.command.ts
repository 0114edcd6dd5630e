import type { ServiceEnvironment } from '../config/environment.js';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../database/embedded-postgres.js';
import { createDataSource } from '../database/database.service.js';

/** Applies pending migrations, each in its own transaction; returns the names applied. */
export async function migrate(env: ServiceEnvironment): Promise<string[]> {
  let embedded: EmbeddedPostgres | null = null;
  let url = env.databaseUrl;
  if (url === null) {
    embedded = await startEmbeddedPostgres(env.dataDir);
    url = embedded.url;
  }
  const source = createDataSource(url, { embedded: embedded !== null });
  try {
    await source.initialize();
    const applied = await source.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    if (source.isInitialized) await source.destroy();
    await embedded?.stop();
  }
}
