import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * The embedded default database: PGlite (real PostgreSQL compiled to WebAssembly) under
 * SERVICE_DATA_DIR, served over the PostgreSQL wire protocol on a Unix socket in that directory,
 * so the ordinary `pg` driver, TypeORM and the same SQL migrations work unchanged.
 * PGlite is one session: the pool above it is held to one connection, so transactions never
 * interleave.
 */
export interface EmbeddedPostgres {
  /** A `pg` connection URL pointing at the socket. */
  url: string;
  stop(): Promise<void>;
}

const SOCKET_PORT = 5432;

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = resolve(dataDir);
  const pgdata = join(dir, 'pgdata');
  mkdirSync(pgdata, { recursive: true });
  // Loaded lazily: the WebAssembly build is only paid for when the embedded database is used.
  const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-socket'),
  ]);
  const db = await PGlite.create({ dataDir: pgdata });
  const socketPath = join(dir, `.s.PGSQL.${SOCKET_PORT}`);
  await removeStaleSocket(socketPath);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 1 });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw new Error(`embedded database could not listen on ${socketPath} (is another process using ${dir}?): ${(error as Error).message}`);
  }
  return {
    url: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=${SOCKET_PORT}`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** A crash leaves the socket file behind; remove it only when nothing answers on it. */
async function removeStaleSocket(path: string): Promise<void> {
  if (!existsSync(path)) return;
  const alive = await new Promise<boolean>((done) => {
    const probe = createConnection(path);
    probe.once('connect', () => { probe.destroy(); done(true); });
    probe.once('error', () => done(false));
  });
  if (!alive) rmSync(path, { force: true });
}
