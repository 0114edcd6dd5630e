import type { Query } from '../../changes/change-record.js';
import { MIGRATIONS_TABLE } from '../../database/database.service.js';
import type { ArchivedTableShape } from './archive-format.js';
import { DERIVED_TABLES, NOT_ARCHIVED } from './archive-table-policy.js';

export interface CatalogColumn {
  name: string;
  type: string;
  /** `GENERATED ALWAYS AS (…) STORED`: archived, never inserted (the target computes it). */
  generated: boolean;
  /** json and jsonb need their own encoding: a JSON `null` value is not SQL NULL. */
  json: 'json' | 'jsonb' | null;
}

export interface CatalogTable {
  name: string;
  columns: CatalogColumn[];
  /** Empty for a table without one (its rows then come in no particular order). */
  primaryKey: string[];
  /** Other tables its foreign keys reference. */
  references: string[];
  /** Columns a sequence fills (serial or identity), with the sequence's qualified name. */
  sequences: { column: string; sequence: string }[];
}

/**
 * Every ordinary table of the application schema (the schema the service's connection uses), as
 * the catalog describes it now. Partitions are left to their parent.
 */
export async function readCatalog(query: Query): Promise<CatalogTable[]> {
  const rows = await query(CATALOG_SQL);
  return rows.map((r) => ({
    name: r.name,
    columns: (r.columns as { name: string; type: string; generated: boolean; base: string }[]).map((c) => ({
      name: c.name, type: c.type, generated: c.generated, json: c.base === 'json' || c.base === 'jsonb' ? c.base : null,
    })),
    primaryKey: r.primary_key ?? [],
    references: r.referenced ?? [],
    sequences: r.sequences ?? [],
  }));
}

/**
 * The archived tables in restore order: each after every table it references (its own
 * self-references aside: those rows come in primary-key order, so a row follows the rows it points
 * back to) and a derived table after its source. Ties go by name, so the order is stable.
 */
export function restoreOrder(tables: readonly CatalogTable[]): CatalogTable[] {
  const archived = tables.filter((t) => !Object.hasOwn(NOT_ARCHIVED, t.name)).sort((a, b) => a.name.localeCompare(b.name));
  const names = new Set(archived.map((t) => t.name));
  const before = (t: CatalogTable) => [...t.references, ...(Object.hasOwn(DERIVED_TABLES, t.name) ? [DERIVED_TABLES[t.name]!] : [])]
    .filter((n) => n !== t.name && names.has(n));
  const ordered: CatalogTable[] = [];
  const placed = new Set<string>();
  while (ordered.length < archived.length) {
    const next = archived.find((t) => !placed.has(t.name) && before(t).every((n) => placed.has(n)));
    if (!next) {
      const left = archived.filter((t) => !placed.has(t.name)).map((t) => t.name);
      throw new Error(`the foreign keys of ${left.join(', ')} form a cycle: no restore order inserts them one table at a time`);
    }
    ordered.push(next);
    placed.add(next.name);
  }
  return ordered;
}

/** What the header says of a table, and what a restore compares with its own. */
export function shapeOf(table: CatalogTable): ArchivedTableShape {
  return { name: table.name, columns: table.columns.map((c) => ({ name: c.name, type: c.type })) };
}

/** The latest migration applied: the schema an archive was taken from, or a restore goes into. */
export async function latestMigration(query: Query): Promise<string> {
  const [row] = await query(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY timestamp DESC LIMIT 1`);
  if (!row) throw new Error('no migration has been applied to this database');
  return row.name;
}

const CATALOG_SQL = `
SELECT c.relname AS name,
  (SELECT json_agg(json_build_object(
            'name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'generated', a.attgenerated <> '',
            'base', (SELECT bt.typname FROM pg_type bt WHERE bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END))
          ORDER BY a.attnum)
     FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
  (SELECT json_agg(a.attname ORDER BY k.position)
     FROM pg_index i
     CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
    WHERE i.indrelid = c.oid AND i.indisprimary) AS primary_key,
  (SELECT json_agg(DISTINCT r.relname)
     FROM pg_constraint f JOIN pg_class r ON r.oid = f.confrelid
    WHERE f.conrelid = c.oid AND f.contype = 'f') AS referenced,
  (SELECT json_agg(json_build_object('column', a.attname, 'sequence', format('%I.%I', sn.nspname, s.relname)) ORDER BY a.attnum)
     FROM pg_depend d
     JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
     JOIN pg_namespace sn ON sn.oid = s.relnamespace
     JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
    WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
      AND d.refobjid = c.oid AND d.deptype IN ('a', 'i')) AS sequences
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
ORDER BY c.relname`;
