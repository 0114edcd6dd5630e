import { describe, expect, it } from 'vitest';
import { type CatalogTable, restoreOrder } from './archive-catalog.js';

const table = (name: string, references: string[] = []): CatalogTable => ({ name, columns: [], primaryKey: ['id'], references, sequences: [] });

describe('restoreOrder', () => {
  it('puts each table after those it references, ties by name, and leaves out the migration bookkeeping', () => {
    const order = restoreOrder([table('tickets', ['runs']), table('schema_migrations'), table('run_events', ['runs']), table('runs'), table('access_people')]);
    expect(order.map((t) => t.name)).toEqual(['access_people', 'runs', 'run_events', 'tickets']);
  });

  it('puts a derived table after its source though no foreign key says so', () => {
    expect(restoreOrder([table('run_counts'), table('runs')]).map((t) => t.name)).toEqual(['runs', 'run_counts']);
  });

  it('ignores a self-reference and a reference to a table it does not archive', () => {
    expect(restoreOrder([table('config_changes', ['config_changes', 'elsewhere'])]).map((t) => t.name)).toEqual(['config_changes']);
  });

  it('refuses a cycle, naming the tables in it', () => {
    expect(() => restoreOrder([table('a', ['b']), table('b', ['a']), table('c')])).toThrow('the foreign keys of a, b form a cycle');
  });
});
