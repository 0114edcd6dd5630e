// What several benches share: the database administrator connection, a free port, and the
// environment a started server gets (the bench's own, minus everything the server reads).
import { createServer as createNetServer } from 'node:net';
import pg from 'pg';

export const ADMIN_URL = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs one statement as the administrator (CREATE / DROP DATABASE). */
export async function admin(sql) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function freePort() {
  const server = createNetServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Environment of a started process: the bench's own, minus everything the server reads. */
export function cleanEnv(extra) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(SERVICE_|PLATFORM_[A-D]_WEBHOOK_)/.test(name) || ['DATABASE_URL', 'KVSTORE_URL', 'PORT', 'HOST', 'LOG_LEVEL'].includes(name)) delete env[name];
  }
  return { ...env, ...extra };
}
