import { type Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Injectable, Logger } from '@nestjs/common';
import { AccessStoreService } from '../../access/access-store.service.js';
import { insertChange, type Query } from '../../changes/change-record.js';
import { DatabaseService } from '../../database/database.service.js';
import { sqlState } from '../../database/database-fault.js';
import { type CatalogTable, latestMigration, readCatalog, restoreOrder, shapeOf } from './archive-catalog.js';
import type { ArchiveHeader, ArchiveTrailer } from './archive-format.js';
import { LineTooLongError, linesOf } from './archive-lines.js';
import { type ArchivePart, readArchive } from './archive-reader.js';
import { ArchiveRefused, unusableArchive } from './archive-refused.js';
import { rollbackAndRelease } from './release-runner.js';
import {
  bumpRevisionSql, deleteRowsSql, filledTablesSql, insertRowsSql, lockTablesSql, raiseRevisionSql, resetSequenceSql,
} from './archive-sql.js';
import { DERIVED_TABLES, MERGED_TABLES, mustBeEmpty, REVISION_TABLES } from './archive-table-policy.js';

/** The largest archive a restore reads (compressed bytes as sent). */
export const MAX_ARCHIVE_BYTES = 4 * 1024 ** 3;
/** The longest line: one row, e.g. a 10 MiB artifact, is about twice its size in hex. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export interface RestoreResult {
  schema: string;
  createdAt: string;
  /** Rows restored per table, as the archive's trailer counts them. */
  rows: Record<string, number>;
  /** The change record of the restore. */
  change: number;
}

/**
 * Restores an archive into an empty installation, in one transaction: the archive is read as it
 * arrives (gunzip, lines, batches of rows) and each batch inserted as it comes, so nothing is held
 * whole; a refusal, a damaged archive or a trailer whose counts do not match rolls everything back.
 * The tables are locked against other writers from the emptiness check to the commit.
 */
@Injectable()
export class ArchiveImporter {
  private readonly logger = new Logger('Archive');

  constructor(
    private readonly db: DatabaseService,
    private readonly access: AccessStoreService,
  ) {}

  async restore(body: Readable, attribution: string): Promise<RestoreResult> {
    const parts = readArchive(linesOf(gunzipped(body, MAX_ARCHIVE_BYTES), MAX_LINE_CHARS));
    try {
      const first = await parts.next();
      if (first.done || first.value.kind !== 'header') throw unusableArchive('truncated', 'the archive is empty');
      const result = await this.apply(first.value.header, parts, attribution);
      this.access.invalidate();
      this.logger.log(`restored an archive of ${first.value.header.created_at} (${Object.values(result.rows).reduce((a, b) => a + b, 0)} rows), by ${attribution}`);
      return result;
    } catch (error) {
      throw refusalOf(error);
    } finally {
      // Whatever was not read is discarded, so the answer reaches a client still sending.
      await parts.return(undefined);
      body.unpipe();
      body.resume();
    }
  }

  private async apply(header: ArchiveHeader, parts: AsyncGenerator<ArchivePart>, attribution: string): Promise<RestoreResult> {
    const runner = this.db.dataSource.createQueryRunner();
    const query: Query = (sql, p) => runner.query(sql, p);
    try {
      await runner.startTransaction();
      const tables = await targetTables(query, header);
      await query(lockTablesSql(tables.map((t) => t.name)));
      const filled = (await query(filledTablesSql(tables.map((t) => t.name).filter(mustBeEmpty)))).map((r) => r.name as string);
      if (filled.length > 0) {
        throw new ArchiveRefused(409, 'not_empty', `a restore goes into an empty installation only; these tables hold rows: ${filled.join(', ')}`, { tables: filled });
      }
      const byName = new Map(tables.map((t) => [t.name, t]));
      let trailer: ArchiveTrailer | null = null;
      for await (const part of parts) {
        if (part.kind === 'table' && Object.hasOwn(DERIVED_TABLES, part.name)) await query(deleteRowsSql(part.name));
        if (part.kind === 'rows') await insertRows(query, byName.get(part.table)!, part.rows);
        if (part.kind === 'trailer') trailer = part.trailer;
      }
      await resetSequences(query, tables, trailer!);
      for (const table of REVISION_TABLES) if (byName.has(table)) await query(bumpRevisionSql(table));
      const change = await insertChange(query, {
        attribution, kind: 'archive.restore', target: 'archive', before: null,
        after: { schema: header.schema, createdAt: header.created_at, rows: trailer!.rows },
      });
      await runner.commitTransaction();
      return { schema: header.schema, createdAt: header.created_at, rows: trailer!.rows, change };
    } finally {
      await rollbackAndRelease(runner);
    }
  }
}

/** This database's archived tables, refusing an archive of another schema (422 naming the difference). */
async function targetTables(query: Query, header: ArchiveHeader): Promise<CatalogTable[]> {
  const schema = await latestMigration(query);
  if (header.schema !== schema) {
    throw unusableArchive('schema_mismatch', `the archive was taken at migration ${header.schema}; this installation is at ${schema}. Restore into an installation of the release that took it, then upgrade`, { archiveSchema: header.schema, schema });
  }
  const tables = restoreOrder(await readCatalog(query));
  const ours = JSON.stringify(tables.map(shapeOf));
  if (JSON.stringify(header.tables) !== ours) {
    const differing = differingTables(header, tables);
    throw unusableArchive('schema_mismatch', `the archive's tables differ from this database's at the same migration (${differing.join(', ')}): was either schema altered by hand?`, { tables: differing });
  }
  return tables;
}

function differingTables(header: ArchiveHeader, tables: CatalogTable[]): string[] {
  const theirs = new Map(header.tables.map((t) => [t.name, JSON.stringify(t)]));
  const names = new Set([...theirs.keys(), ...tables.map((t) => t.name)]);
  const ours = new Map(tables.map((t) => [t.name, JSON.stringify(shapeOf(t))]));
  const differing = [...names].filter((n) => theirs.get(n) !== ours.get(n)).sort();
  return differing.length > 0 ? differing : ['their order'];
}

async function insertRows(query: Query, table: CatalogTable, rows: string[]): Promise<void> {
  const json = `[${rows.join(',')}]`;
  try {
    if (REVISION_TABLES.includes(table.name)) await query(raiseRevisionSql(table.name), [json]);
    else await query(insertRowsSql(table, MERGED_TABLES.includes(table.name)), [json]);
  } catch (error) {
    // Data (22) and integrity (23) errors are the archive's: a damaged row, or rows that do not fit together.
    if (/^2[23]/.test(sqlState(error) ?? '')) {
      throw unusableArchive('rows_refused', `rows of table ${table.name} cannot be restored: ${(error as Error).message}`, { table: table.name });
    }
    throw error;
  }
}

async function resetSequences(query: Query, tables: CatalogTable[], trailer: ArchiveTrailer): Promise<void> {
  for (const table of tables) {
    for (const { column, sequence } of table.sequences) {
      const archived = trailer.sequences.find((s) => s.table === table.name && s.column === column)?.last_value ?? null;
      await query(resetSequenceSql(table.name, column), [sequence, archived]);
    }
  }
}

/** The request body, size-checked and decompressed. */
function gunzipped(body: Readable, limit: number): Readable {
  let seen = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) done(new ArchiveRefused(413, 'too_large', `the archive is larger than ${limit} bytes, the most a restore reads`));
      else done(null, chunk);
    },
  });
  const gunzip = createGunzip();
  for (const stream of [body, limiter]) stream.once('error', (error) => gunzip.destroy(error));
  body.pipe(limiter).pipe(gunzip);
  return gunzip;
}

/** What went wrong as the client should hear it: the archive's faults as 413/422, anything else as it is. */
function refusalOf(error: unknown): unknown {
  if (error instanceof ArchiveRefused) return error;
  if (error instanceof LineTooLongError) return unusableArchive('corrupt', `${error.message}: it is damaged, or not an archive`);
  const code = (error as { code?: unknown }).code;
  if (code === 'Z_BUF_ERROR') return unusableArchive('truncated', 'the archive\'s gzip stream ends early: it was cut short');
  if (typeof code === 'string' && code.startsWith('Z_')) return unusableArchive('corrupt', `the archive is not a readable gzip stream (${(error as Error).message})`);
  return error;
}
