import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../paths.js';
import { loadSqlMigrations } from './sql-migrations.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sql-migrations-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadSqlMigrations', () => {
  it('names each migration camelCase + a 13-digit timestamp carrying its sequence number, in file order', () => {
    writeFileSync(join(dir, '0002_access_rules.sql'), 'SELECT 2;');
    writeFileSync(join(dir, '0001_initial.sql'), 'SELECT 1;');
    writeFileSync(join(dir, '0010_run_event_seq.sql'), 'SELECT 10;');
    const migrations = loadSqlMigrations(dir);
    const names = migrations.map((M) => new M().name);
    expect(names).toEqual(['initial1700000000001', 'accessRules1700000000002', 'runEventSeq1700000000010']);
    // TypeORM reads the class name too; both agree.
    expect(migrations.map((M) => M.name)).toEqual(names);
    for (const name of names) expect(name).toMatch(/\d{13}$/);
  });

  it('ignores files that do not follow NNNN_name.sql', () => {
    for (const file of ['README.md', '1_short.sql', '0003_Upper.sql', '0004-dash.sql', '0005_ok.sql.bak', 'notes.sql']) {
      writeFileSync(join(dir, file), 'SELECT 1;');
    }
    writeFileSync(join(dir, '0006_kept.sql'), 'SELECT 6;');
    expect(loadSqlMigrations(dir).map((M) => new M().name)).toEqual(['kept1700000000006']);
  });

  it('runs the file text as its up step and refuses to go down', async () => {
    writeFileSync(join(dir, '0001_initial.sql'), 'CREATE TABLE t (id int);');
    const [Migration] = loadSqlMigrations(dir);
    if (!Migration) throw new Error('no migration loaded');
    const ran: string[] = [];
    const runner = { query: async (sql: string) => void ran.push(sql) } as unknown as Parameters<InstanceType<typeof Migration>['up']>[0];
    await new Migration().up(runner);
    expect(ran).toEqual(['CREATE TABLE t (id int);']);
    await expect(new Migration().down(runner)).rejects.toThrow(/0001_initial\.sql has no down step/);
  });

  it('loads the project migrations with unique, increasing names', () => {
    const names = loadSqlMigrations(MIGRATIONS_DIR).map((M) => new M().name);
    expect(names.length).toBeGreaterThanOrEqual(6);
    expect(names[0]).toBe('initial1700000000001');
    expect(new Set(names).size).toBe(names.length);
    const stamps = names.map((n) => Number(/(\d{13})$/.exec(n ?? '')?.[1]));
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
  });
});
