import { MIGRATIONS_TABLE } from '../../database/database.service.js';

/**
 * The table-by-table decisions of the archive. Tables are discovered from the catalog, so a table a
 * future migration adds is archived and restored like any other (the target must hold none of its
 * rows) unless it is named here; archive.test.ts fails until the round trip fills it.
 */

/** Never archived, each with the reason. Everything else in the application schema is. */
export const NOT_ARCHIVED: Readonly<Record<string, string>> = {
  [MIGRATIONS_TABLE]: 'migration bookkeeping: the target\'s own `migrate` wrote it, and the header\'s `schema` must match it',
};

/**
 * One-row revision counters the migrations seed in every installation. Not required empty and not
 * copied: each is moved to at least the archived value, then bumped, so every replica of the
 * target re-reads its configuration and access document.
 */
export const REVISION_TABLES: readonly string[] = ['access_revision', 'config_revision'];

/**
 * Written for every validated caller, so the administrator restoring is already recorded on the
 * target by then. Not required empty; archived rows are added beside the target's, whose row wins
 * for the same key (it is the newer).
 */
export const MERGED_TABLES: readonly string[] = ['access_observations'];

/**
 * Kept by triggers from another table's rows (the run counters from `runs`). Not required empty;
 * restored after that table, replacing whatever its triggers counted meanwhile, so the counters
 * come back exactly as archived.
 */
export const DERIVED_TABLES: Readonly<Record<string, string>> = { run_counts: 'runs' };

/** Whether a restore needs the target's table empty first. */
export function mustBeEmpty(table: string): boolean {
  return !REVISION_TABLES.includes(table) && !MERGED_TABLES.includes(table) && !Object.hasOwn(DERIVED_TABLES, table);
}
