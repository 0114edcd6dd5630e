// The embedded PostgreSQL (PGlite) in a process of its own, started and stopped by the server
// (src/database/embedded-postgres.ts). Its WebAssembly heap (~280 MB) stays out of the server's
// memory, and a database fault cannot take the server down with it. Kept free of TypeScript-only
// syntax so Node runs it directly from source in tests.
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const [dataDir, socketPath] = process.argv.slice(2);

// Memory settings for a one-session database of a few thousand rows (PGlite's defaults are a
// server's: shared_buffers 128MB, which the WebAssembly heap keeps once touched). Only buffer and
// working-memory sizes change, appended to PGlite's own start parameters; fsync,
// synchronous_commit, full_page_writes and the WAL settings stay as PGlite sets them, so
// durability is unchanged. wal_buffers follows shared_buffers (1/32) by default.
const MEMORY_SETTINGS = [
  '-c', 'shared_buffers=16MB',
  '-c', 'temp_buffers=1MB',
  '-c', 'maintenance_work_mem=16MB',
];

async function main(): Promise<void> {
  const db = await PGlite.create({ dataDir, startParams: [...PGlite.defaultStartParams, ...MEMORY_SETTINGS] });
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 1 });
  await server.start();
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    process.exit(0);
  };
  // The server went away (even by SIGKILL): the IPC channel closes and the database stops with it.
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.send?.({ ready: true });
}

main().catch((error: unknown) => {
  process.send?.({ error: (error as Error).message });
  process.exit(1);
});
