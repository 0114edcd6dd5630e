import { Inject, Injectable, Logger, type OnApplicationShutdown, ServiceUnavailableException } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { MIGRATIONS_DIR } from '../paths.js';
import { redactUrl } from '../store/redact-url.js';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres.js';
import { ENTITIES } from './entities/index.js';
import { loadSqlMigrations } from './sql-migrations.js';

export type DatabaseStatus =
  | { state: 'connecting' }
  | { state: 'ready' }
  | { state: 'migrations-pending'; pending: string[] }
  | { state: 'unavailable'; reason: string };

const RETRY_MS = 15_000;
/** SQLSTATE invalid_sql_statement_name: "prepared statement … does not exist". */
const PG_INVALID_STATEMENT_NAME = '26000';
/** TypeORM's record of the migrations applied, one row each. */
export const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * The system of record. Opens in the background so a missing database never stops the server:
 * while it is unavailable, `dataSource` throws a 503 and a retry runs every 15 s.
 * The server never migrates; pending migrations keep the database out of use until
 * `npm run migrate` has run.
 */
@Injectable()
export class DatabaseService implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private source: DataSource | null = null;
  private embedded: EmbeddedPostgres | null = null;
  private current: DatabaseStatus = { state: 'connecting' };
  private retry: NodeJS.Timeout | null = null;
  private opening: Promise<DatabaseStatus> | null = null;
  private closed = false;
  /** False once a prepared statement was lost between calls: see `preparedQuery`. */
  private namedStatements = true;
  private readonly listeners = new Set<(status: DatabaseStatus) => void>();

  constructor(@Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment) {}

  get status(): DatabaseStatus {
    return this.current;
  }

  /** Where the data lives, fit for logs and findings. */
  get target(): string {
    return this.env.databaseUrl ? redactUrl(this.env.databaseUrl) : `embedded PostgreSQL under ${this.env.dataDir}`;
  }

  get isReady(): boolean {
    return this.current.state === 'ready';
  }

  /** The data source, when the database is ready; otherwise a 503 naming the cause. */
  get dataSource(): DataSource {
    if (this.source && this.current.state === 'ready') return this.source;
    throw new ServiceUnavailableException(`database unavailable: ${describe(this.current)}`);
  }

  /**
   * One statement on the pool itself, prepared once per connection under `name`: for the hot
   * paths (a claim per delivery). An unnamed statement is parsed and planned on every call;
   * bench:webhooks measured PostgreSQL CPU per claim 1.06–1.26 ms → 0.75–0.79 ms. Unnamed on the
   * embedded database (one PGlite session behind a socket, which a reconnection keeps, so a second
   * PREPARE of the name would fail), and from the first time the server has lost a prepared
   * statement (SQLSTATE 26000: a pooler in transaction mode that does not keep them, such as
   * PgBouncer before 1.21), when the statement is run again unnamed: it never ran. Errors are
   * pg's own (`code` is the SQLSTATE).
   */
  async preparedQuery<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    if (this.env.databaseUrl === null || !this.namedStatements) return (await pool.query({ text, values })).rows as T[];
    try {
      return (await pool.query({ name, text, values })).rows as T[];
    } catch (error) {
      if ((error as { code?: string }).code !== PG_INVALID_STATEMENT_NAME) throw error;
      this.namedStatements = false;
      this.logger.warn(`prepared statement ${name} was lost between calls (a connection pooler in transaction mode?); `
        + 'statements now run unnamed, parsed on every call');
      return (await pool.query({ text, values })).rows as T[];
    }
  }

  /** Called after every open attempt with its outcome. */
  onStatus(listener: (status: DatabaseStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens (once; concurrent callers share the attempt) and reports the outcome. */
  open(): Promise<DatabaseStatus> {
    if (this.current.state === 'ready') return Promise.resolve(this.current);
    this.opening ??= this.tryOpen().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async tryOpen(): Promise<DatabaseStatus> {
    try {
      if (!this.source) this.source = await this.connect();
      const pending = await pendingMigrations(this.source);
      this.current = pending.length > 0 ? { state: 'migrations-pending', pending } : { state: 'ready' };
    } catch (error) {
      await this.source?.destroy().catch(() => undefined);
      this.source = null;
      this.current = { state: 'unavailable', reason: (error as Error).message };
    }
    if (this.current.state === 'ready') this.logger.log(`ready (${this.target})`);
    else this.scheduleRetry();
    for (const listener of this.listeners) listener(this.current);
    return this.current;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.open();
    }, RETRY_MS);
    this.retry.unref();
  }

  private async connect(): Promise<DataSource> {
    let url = this.env.databaseUrl;
    if (url === null) {
      this.embedded ??= await startEmbeddedPostgres(this.env.dataDir);
      url = this.embedded.url;
    }
    const source = createDataSource(url, { embedded: this.env.databaseUrl === null });
    await source.initialize();
    return source;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.opening?.catch(() => undefined);
    await this.source?.destroy().catch(() => undefined);
    await this.embedded?.stop().catch(() => undefined);
  }
}

export function createDataSource(url: string, opts: { embedded: boolean }): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: loadSqlMigrations(MIGRATIONS_DIR),
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: opts.embedded ? 1 : 10, connectionTimeoutMillis: 5000 },
  });
}

/** Names of migrations not yet applied. */
export async function pendingMigrations(source: DataSource): Promise<string[]> {
  const applied = new Set<string>();
  const runner = source.createQueryRunner();
  try {
    const exists = await runner.hasTable(MIGRATIONS_TABLE);
    if (exists) {
      const rows: { name: string }[] = await runner.query(`SELECT name FROM ${MIGRATIONS_TABLE}`);
      for (const row of rows) applied.add(row.name);
    }
  } finally {
    await runner.release();
  }
  return source.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !applied.has(name));
}

export function describe(status: DatabaseStatus): string {
  switch (status.state) {
    case 'ready': return 'ready';
    case 'connecting': return 'still connecting';
    case 'migrations-pending': return `${status.pending.length} migration(s) pending; run \`npm run migrate\``;
    case 'unavailable': return status.reason;
  }
}
