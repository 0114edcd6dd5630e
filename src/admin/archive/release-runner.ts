import type { QueryRunner } from 'typeorm';

/**
 * Ends whatever transaction the runner still has open (nothing was committed: it is rolled back)
 * and hands its connection back. Safe to call twice. A rollback that fails means the connection
 * broke, and pg has already handed it back to the pool as broken.
 */
export async function rollbackAndRelease(runner: QueryRunner): Promise<void> {
  if (runner.isReleased) return;
  try {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
  } catch {
    // See above: nothing to do for a broken connection.
  } finally {
    await runner.release();
  }
}
