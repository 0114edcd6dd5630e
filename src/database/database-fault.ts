/**
 * Whether a failed write says the database is away or in trouble (the write can succeed later,
 * unchanged) rather than refusing the data written (it never will): a class of connection (08),
 * transaction state (25, a read-only standby), authorisation (28), catalog (3D, the database is
 * gone), rollback (40), resources (53), lock (55), operator (57), system (58) or internal (XX)
 * trouble. Anything else PostgreSQL answers (22 data, 23 integrity, 54 limits, …) is the data's.
 * Null when PostgreSQL did not answer at all (no SQLSTATE: connection refused or reset, a pool
 * timeout, a value the driver could not send); callers decide what that means for them.
 */
export function isDatabaseFault(error: unknown): boolean | null {
  const code = sqlState(error);
  return code === null ? null : /^(08|25|28|3D|40|53|55|57|58|XX)/.test(code);
}

/** The SQLSTATE of an error PostgreSQL answered (pg's `DatabaseError`, also inside TypeORM's `QueryFailedError`). */
export function sqlState(error: unknown): string | null {
  const e = error as { driverError?: unknown } | null;
  for (const candidate of [e, e?.driverError]) {
    const { code, severity } = (candidate ?? {}) as { code?: unknown; severity?: unknown };
    // Node's own errors carry codes too (`EPIPE`, `ECONNRESET`); only the server's come with a severity.
    if (typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}
