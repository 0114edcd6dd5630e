import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { fork } from 'node:child_process';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';
import { forkedScript } from '../common/forked-script.js';

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
  /** The database process, for operators and the boot benchmark. */
  pid: number | null;
  stop(): Promise<void>;
}

const SOCKET_PORT = 5432;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = resolve(dataDir);
  const pgdata = join(dir, 'pgdata');
  mkdirSync(pgdata, { recursive: true });
  const socketPath = join(dir, `.s.PGSQL.${SOCKET_PORT}`);
  if (await socketAnswers(socketPath)) {
    throw new Error(`embedded database in ${dir} is already served by another process (only one may use a data directory; stop it first)`);
  }
  rmSync(socketPath, { force: true });
  const child = fork(forkedScript(import.meta.url, 'database', 'embedded-postgres'), [pgdata, socketPath], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`embedded database did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.once('message', (message: { ready?: boolean; error?: string }) => {
      clearTimeout(timer);
      if (message.ready) ready();
      else fail(new Error(`embedded database could not start in ${dir}: ${message.error ?? 'unknown error'}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`embedded database process exited (code ${code}) before it was ready`));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    url: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=${SOCKET_PORT}`,
    pid: child.pid ?? null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** True when a server answers on the socket. */
function socketAnswers(path: string): Promise<boolean> {
  if (!existsSync(path)) return Promise.resolve(false);
  return new Promise<boolean>((done) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      done(true);
    });
    probe.once('error', () => done(false));
  });
}
