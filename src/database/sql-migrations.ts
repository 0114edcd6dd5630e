import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Migrations are plain SQL files (`migrations/NNNN_name.sql`), readable by operators and DBAs,
 * run through TypeORM's migration table. TypeORM wants a 13-digit timestamp at the end of each
 * name, so the file's sequence number is folded into one.
 */
const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
const BASE_TIMESTAMP = 1_700_000_000_000;

export type MigrationClass = new () => MigrationInterface;

export function loadSqlMigrations(dir: string): MigrationClass[] {
  return readdirSync(dir)
    .filter((f) => FILE.test(f))
    .sort()
    .map((file) => {
      const [, seq, slug] = FILE.exec(file) as RegExpExecArray;
      const sql = readFileSync(join(dir, file), 'utf8');
      const name = `${slug.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}${BASE_TIMESTAMP + Number(seq)}`;
      const migration = class implements MigrationInterface {
        name = name;
        async up(runner: QueryRunner): Promise<void> {
          await runner.query(sql);
        }
        async down(): Promise<void> {
          throw new Error(`migration ${file} has no down step; restore from a backup instead`);
        }
      };
      Object.defineProperty(migration, 'name', { value: name });
      return migration;
    });
}
