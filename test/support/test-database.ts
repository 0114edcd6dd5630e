import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../src/cli/migrate.command.js';
import { readEnvironment } from '../../src/config/environment.js';

/** The machine's PostgreSQL (trust auth); override with TEST_DATABASE_ADMIN_URL. */
export const PG_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops it, after the sessions of pools that just closed have gone. */
  drop(): Promise<void>;
}

/** Runs one statement as the administrator (e.g. to drop a database under a running server). */
export async function adminQuery(sql: string): Promise<void> {
  await admin((c) => c.query(sql));
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, uniquely named database, migrated by the project's own `migrate` (so tests run the
 * real migrations), for one test file: files run in parallel against one server.
 */
export async function createTestDatabase(label: string, opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  if (opts.migrated !== false) await migrate(readEnvironment({ DATABASE_URL: url.toString() }));
  return { name, url: url.toString(), drop: () => dropTestDatabase(name) };
}

export async function dropTestDatabase(name: string): Promise<void> {
  await admin(async (c) => {
    // A pool that just closed may still be saying goodbye; forcing the drop then would hit that
    // connection with a FATAL nobody listens for. Wait for the sessions to go first.
    for (let waited = 0; waited < 5000; waited += 50) {
      const { rows } = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if ((rows[0] as { n: number }).n === 0) break;
      await new Promise((done) => setTimeout(done, 50));
    }
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}
