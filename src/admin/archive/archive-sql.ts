import pg from 'pg';
import type { CatalogColumn, CatalogTable } from './archive-catalog.js';

/**
 * The statements that move rows out of and into one table. A row travels as `row_to_json(row)`
 * and comes back through `json_populate_recordset(NULL::table, …)`: each value through its type's
 * own output and input, so bytea, numerics, timestamps, arrays and NULLs return as they were. The
 * one value that would not is a JSON `null` in a json/jsonb column (indistinguishable from SQL
 * NULL's `null`), so those columns are wrapped: jsonb in a one-element array, json as its text
 * (which also keeps json's own spelling).
 */
const ident = pg.escapeIdentifier;
const ROW = 'archived_row';

function encoded(column: CatalogColumn): string {
  const value = `${ROW}.${ident(column.name)}`;
  if (column.json === 'jsonb') return `CASE WHEN ${value} IS NULL THEN NULL ELSE jsonb_build_array(${value}) END AS ${ident(column.name)}`;
  if (column.json === 'json') return `to_json(${value}::text) AS ${ident(column.name)}`;
  return value;
}

function decoded(column: CatalogColumn): string {
  const value = `${ROW}.${ident(column.name)}`;
  if (column.json === 'jsonb') return `${value} -> 0`;
  if (column.json === 'json') return `(${value} #>> '{}')::json`;
  return value;
}

/**
 * The rows of a table, one JSON text each (`line`). Storage order, the fastest to read, except for a
 * table referencing itself: primary-key order, so that a row comes after the rows it points back to.
 */
export function selectRowsSql(table: CatalogTable): string {
  // A row's text starts with its first column's name; `@` there would read as a control record.
  if (table.columns[0]?.name === '@') throw new Error(`table ${table.name} cannot be archived: its first column is named "@"`);
  const order = table.references.includes(table.name) && table.primaryKey.length > 0
    ? ` ORDER BY ${table.primaryKey.map((c) => `archived.${ident(c)}`).join(', ')}`
    : '';
  return `SELECT row_to_json(archived.*)::text AS line
    FROM (SELECT ${table.columns.map(encoded).join(', ')} FROM ${ident(table.name)} AS ${ROW}) AS archived${order}`;
}

/** Inserts the rows of `$1` (a JSON array of archived rows); `keepExisting` leaves a row whose key the table already holds. */
export function insertRowsSql(table: CatalogTable, keepExisting: boolean): string {
  const columns = table.columns.filter((c) => !c.generated);
  return `INSERT INTO ${ident(table.name)} (${columns.map((c) => ident(c.name)).join(', ')}) OVERRIDING SYSTEM VALUE
    SELECT ${columns.map(decoded).join(', ')} FROM json_populate_recordset(NULL::${ident(table.name)}, $1::json) AS ${ROW}
    ${keepExisting ? 'ON CONFLICT DO NOTHING' : ''}`;
}

/** Moves a one-row revision counter to at least the archived value (`$1`, its archived rows). */
export function raiseRevisionSql(table: string): string {
  return `UPDATE ${ident(table)} SET revision = GREATEST(revision,
    (SELECT max(${ROW}.revision) FROM json_populate_recordset(NULL::${ident(table)}, $1::json) AS ${ROW}))`;
}

export function bumpRevisionSql(table: string): string {
  return `UPDATE ${ident(table)} SET revision = revision + 1`;
}

/**
 * Bytes on disk per row of a table (`$1`), TOAST included: what a first fetch is sized by, so a
 * table of megabyte-sized artifacts is not fetched a hundred rows at a time. Unanalysed (no row
 * estimate), the whole table counts as one row, and the next fetch corrects it.
 */
export const ROW_BYTES_SQL = `SELECT pg_table_size(c.oid)::float8 / GREATEST(c.reltuples, 1)::float8 AS bytes FROM pg_class c WHERE c.oid = $1::regclass`;

/** The last value a sequence gave out (`$1` its name), null before its first. */
export const SEQUENCE_VALUE_SQL = 'SELECT pg_sequence_last_value($1::regclass)::text AS last_value';

/**
 * Sets a column's sequence (`$1`) past both the restored rows and what it had given out at the
 * source (`$2`, or null), so a new row never takes an id the source once used.
 */
export function resetSequenceSql(table: string, column: string): string {
  return `SELECT setval($1::regclass, v) FROM (SELECT GREATEST((SELECT max(${ident(column)}) FROM ${ident(table)}), $2::bigint) AS v) AS s
    WHERE v IS NOT NULL`;
}

/** Names those of `tables` holding at least one row. */
export function filledTablesSql(tables: readonly string[]): string {
  if (tables.length === 0) return 'SELECT NULL::text AS name WHERE false';
  return tables.map((t) => `SELECT ${pg.escapeLiteral(t)} AS name WHERE EXISTS (SELECT 1 FROM ${ident(t)})`).join(' UNION ALL ');
}

/** Keeps every other writer out of the tables until the restore commits (readers go on). */
export function lockTablesSql(tables: readonly string[]): string {
  return `LOCK TABLE ${tables.map(ident).join(', ')} IN EXCLUSIVE MODE`;
}

export function deleteRowsSql(table: string): string {
  return `DELETE FROM ${ident(table)}`;
}
