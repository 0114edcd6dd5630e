/**
 * The archive format (docs/api.md, "Whole-database archive"): gzip'd NDJSON, one JSON object a
 * line. A line whose first key is `@` is a control record; every other line is one row of the
 * table the last `table` record opened, exactly as the database encoded it (never re-serialised by
 * JavaScript, so numerics keep every digit).
 *
 *   {"@":"header","format":"pipeline-service-archive","version":1,"schema":…,"created_at":…,"tables":[…]}
 *   {"@":"table","name":"runs"}
 *   {…row…}
 *   …
 *   {"@":"trailer","rows":{"runs":2,…},"sequences":[…]}
 *
 * The trailer's row counts are what a reader checks to know that nothing was lost on the way.
 */
export const ARCHIVE_FORMAT = 'pipeline-service-archive';
export const ARCHIVE_VERSION = 1;

/** What `GET /api/archive` answers as, and what `POST /api/archive` reads. */
export const ARCHIVE_MEDIA_TYPE = 'application/gzip';

export interface ArchiveColumn {
  name: string;
  /** As `format_type` spells it (`timestamp with time zone`, `text[]`, `numeric(14,6)`). */
  type: string;
}

export interface ArchivedTableShape {
  name: string;
  columns: ArchiveColumn[];
}

export interface ArchiveHeader {
  '@': 'header';
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  /** The latest migration applied to the source database: a restore needs the same. */
  schema: string;
  created_at: string;
  /** Every archived table, in the order its rows follow (each after the tables it references). */
  tables: ArchivedTableShape[];
}

export interface ArchiveTableStart {
  '@': 'table';
  name: string;
}

/** The last value a column's sequence gave out before the archive was taken (text: a bigint; null: none yet). */
export interface ArchivedSequence {
  table: string;
  column: string;
  last_value: string | null;
}

export interface ArchiveTrailer {
  '@': 'trailer';
  /** Rows written per table, every table of the header named. */
  rows: Record<string, number>;
  sequences: ArchivedSequence[];
}

export type ControlRecord = ArchiveHeader | ArchiveTableStart | ArchiveTrailer;

/**
 * Control records are written by JSON.stringify, `@` first. A row is `row_to_json`'s text, which
 * starts with its table's first column name; a table whose first column is `@` is never archived
 * (archive-sql.ts).
 */
const CONTROL_PREFIX = '{"@":"';

export function isControlLine(line: string): boolean {
  return line.startsWith(CONTROL_PREFIX);
}

export function controlLine(record: ControlRecord): string {
  return `${JSON.stringify(record)}\n`;
}
