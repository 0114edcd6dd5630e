/** A secret's value as the change feed shows it: never the value. */
export const MASKED = '***';

export type Query = (sql: string, parameters?: unknown[]) => Promise<any[]>;

/** The target of a change that rewrote every stored setting and access record (an import); secrets it leaves alone. */
export const WHOLE_CONFIGURATION = 'configuration';

/** One write of secrets, settings or access (spec "Attribution": the `name_claim` principal, or `dashboard`). */
export interface ChangeEntry {
  attribution: string;
  /** `secret.put`, `secret.delete`, `setting.put`, `setting.delete`, `access.<change kind>` (`access.grant-person`, …), or `config.import`. */
  kind: string;
  /** What was written: `secret:NAME`, `setting:dotted.key`, `person:claim:value`, `group:value`, `role:name`, `claims`, or `configuration` (all of it). */
  target: string;
  before: unknown;
  after: unknown;
  /** A secret's previous value, sealed as in `secrets` (null: there was none). Kept for a revert, never served. */
  beforeSecret?: Buffer | null;
  /** The change this one reverts. */
  revertOf?: number | null;
}

export interface ChangeRow {
  id: number;
  at: string;
  attribution: string;
  kind: string;
  target: string;
  before: unknown;
  after: unknown;
  revertOf: number | null;
}

export async function insertChange(query: Query, e: ChangeEntry): Promise<number> {
  const [row] = await query(
    `INSERT INTO config_changes (attribution, kind, target, before, after, before_secret, revert_of)
     VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7) RETURNING id`,
    [e.attribution, e.kind, e.target, JSON.stringify(e.before ?? null), JSON.stringify(e.after ?? null), e.beforeSecret ?? null, e.revertOf ?? null],
  );
  return Number(row.id);
}

const COLUMNS = `id, at, attribution, kind, target, before, after, revert_of`;

function rowOf(r: Record<string, any>): ChangeRow {
  return {
    id: Number(r.id), at: new Date(r.at).toISOString(), attribution: r.attribution, kind: r.kind, target: r.target,
    before: r.before, after: r.after, revertOf: r.revert_of === null ? null : Number(r.revert_of),
  };
}

/** Newest first. */
export async function readChanges(query: Query, limit: number, offset: number): Promise<{ changes: ChangeRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    query(`SELECT ${COLUMNS} FROM config_changes ORDER BY id DESC LIMIT $1 OFFSET $2`, [limit, offset]),
    query('SELECT count(*)::int AS total FROM config_changes'),
  ]);
  return { changes: rows.map(rowOf), total: count.total };
}

/** The record with its sealed previous secret (for a revert only). */
export async function readChange(query: Query, id: number): Promise<(ChangeRow & { beforeSecret: Buffer | null }) | null> {
  const [row] = await query(`SELECT ${COLUMNS}, before_secret FROM config_changes WHERE id = $1`, [id]);
  return row ? { ...rowOf(row), beforeSecret: row.before_secret } : null;
}

/**
 * Ids of later changes of any of `targets`: a revert on top of them would silently undo them too.
 * A target an import rewrites names WHOLE_CONFIGURATION among them.
 */
export async function newerChangesOn(query: Query, id: number, targets: readonly string[]): Promise<number[]> {
  const rows = await query('SELECT id FROM config_changes WHERE target = ANY($1) AND id > $2 ORDER BY id', [targets, id]);
  return rows.map((r) => Number(r.id));
}
