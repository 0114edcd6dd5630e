import pg from 'pg';
import type { CatalogColumn, CatalogTable } from './archive-catalog.js';

/**
 * The statements that move rows out of and into one table. A row travels as `to_jsonb(row)`
 * and comes back through `jsonb_populate_recordset(NULL::table, …)`: each value through its
 * type's own output and input, so bytea, numerics, timestamps, arrays and NULLs return as they
 * were. The one value that would not is a JSON `null` in a json/jsonb column (to_jsonb would make
 * it SQL NULL's `null`), so those columns are wrapped (jsonb in a one-element array, json as its
 * text, which also keeps json's own spelling).
 */
const ident = pg.escapeIdentifier;
const ROW = 'archived_row';

function encoded(column: CatalogColumn): string {
  const value = `${ROW}.${ident(column.name)}`;
  return column.json === 'jsonb'
    ? `CASE WHEN ${value} IS NULL THEN NULL ELSE jsonb_build_array(${value}) END`
    : `to_jsonb(${value}::text)`;
}

function decoded(column: CatalogColumn): string {
  const value = `${ROW}.${ident(column.name)}`;
  if (column.json === 'jsonb') return `${value} -> 0`;
  if (column.json === 'json') return `(${value} #>> '{}')::json`;
  return value;
}

/** The rows of a table, one jsonb text each (`line`), in primary-key order. */
export function selectRowsSql(table: CatalogTable): string {
  const wrapped = table.columns.filter((c) => c.json !== null).map((c) => `${pg.escapeLiteral(c.name)}, ${encoded(c)}`);
  const row = wrapped.length === 0 ? `to_jsonb(${ROW})` : `to_jsonb(${ROW}) || jsonb_build_object(${wrapped.join(', ')})`;
  const order = table.primaryKey.length === 0 ? '' : ` ORDER BY ${table.primaryKey.map((c) => `${ROW}.${ident(c)}`).join(', ')}`;
  return `SELECT (${row})::text AS line FROM ${ident(table.name)} AS ${ROW}${order}`;
}

/** Inserts the rows of `$1` (a JSON array of archived rows); `keepExisting` leaves a row whose key the table already holds. */
export function insertRowsSql(table: CatalogTable, keepExisting: boolean): string {
  const columns = table.columns.filter((c) => !c.generated);
  return `INSERT INTO ${ident(table.name)} (${columns.map((c) => ident(c.name)).join(', ')}) OVERRIDING SYSTEM VALUE
    SELECT ${columns.map(decoded).join(', ')} FROM jsonb_populate_recordset(NULL::${ident(table.name)}, $1::jsonb) AS ${ROW}
    ${keepExisting ? 'ON CONFLICT DO NOTHING' : ''}`;
}

/** Moves a one-row revision counter to at least the archived value (`$1`, its archived rows). */
export function raiseRevisionSql(table: string): string {
  return `UPDATE ${ident(table)} SET revision = GREATEST(revision,
    (SELECT max(${ROW}.revision) FROM jsonb_populate_recordset(NULL::${ident(table)}, $1::jsonb) AS ${ROW}))`;
}

export function bumpRevisionSql(table: string): string {
  return `UPDATE ${ident(table)} SET revision = revision + 1`;
}

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
