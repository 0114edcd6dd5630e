/**
 * The rows of an `UPDATE … RETURNING` / `DELETE … RETURNING` run through TypeORM's `query()`:
 * for those commands the PostgreSQL driver answers `[rows, rowCount]` instead of the rows.
 */
export function updatedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
