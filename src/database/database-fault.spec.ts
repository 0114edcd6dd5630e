import { describe, expect, it } from 'vitest';
import { isDatabaseFault, sqlState } from './database-fault.js';

const answered = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code, severity: 'ERROR' });

describe('isDatabaseFault', () => {
  it('the database\'s trouble: connection, catalog (database gone), resources, locks, operator, internal', () => {
    for (const code of ['08006', '25006', '28P01', '3D000', '40001', '53300', '55P03', '57P01', '58000', 'XX000']) {
      expect(isDatabaseFault(answered(code)), code).toBe(true);
    }
  });

  it('the data\'s: NUL or bad values, integrity, limits (an index row too large)', () => {
    for (const code of ['22021', '22P02', '23505', '54000']) expect(isDatabaseFault(answered(code)), code).toBe(false);
  });

  it('null without an answer from PostgreSQL; Node\'s own codes are not SQLSTATEs', () => {
    expect(isDatabaseFault(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBeNull();
    expect(isDatabaseFault(new Error('timeout exceeded when trying to connect'))).toBeNull();
  });

  it('reads the code inside TypeORM\'s QueryFailedError (driverError)', () => {
    expect(sqlState(Object.assign(new Error('query failed'), { driverError: answered('3D000') }))).toBe('3D000');
  });
});
