import { describe, expect, it } from 'vitest';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION } from './archive-format.js';
import { type ArchivePart, readArchive } from './archive-reader.js';

const header = { '@': 'header', format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, schema: 's1', created_at: 'now', tables: [{ name: 'a', columns: [] }, { name: 'b', columns: [] }] };
const trailer = (rows: Record<string, number>) => JSON.stringify({ '@': 'trailer', rows, sequences: [] });
const table = (name: string) => JSON.stringify({ '@': 'table', name });

async function read(lines: string[]): Promise<ArchivePart[]> {
  async function* source() {
    yield* lines;
  }
  const parts: ArchivePart[] = [];
  for await (const part of readArchive(source())) parts.push(part);
  return parts;
}
const refusal = async (lines: string[]) => read(lines).then(() => null, (e: { code: string; message: string }) => e);

describe('readArchive', () => {
  it('yields the header, each table and its rows as written, then the trailer', async () => {
    const parts = await read([JSON.stringify(header), table('a'), '{"id": 1}', '{"id": 2}', table('b'), trailer({ a: 2, b: 0 })]);
    expect(parts.map((p) => p.kind)).toEqual(['header', 'table', 'rows', 'table', 'trailer']);
    expect(parts[2]).toEqual({ kind: 'rows', table: 'a', rows: ['{"id": 1}', '{"id": 2}'] });
  });

  it('takes a row that only looks like a control record inside a string for a row', async () => {
    const row = '{"text": "{\\"@\\":\\"trailer\\"}"}';
    const parts = await read([JSON.stringify(header), table('a'), row, table('b'), trailer({ a: 1, b: 0 })]);
    expect(parts[2]).toEqual({ kind: 'rows', table: 'a', rows: [row] });
  });

  it('refuses another format or version before reading further', async () => {
    expect(await refusal(['{"hello": 1}'])).toMatchObject({ code: 'unsupported_format' });
    expect(await refusal([JSON.stringify({ ...header, version: 2 })])).toMatchObject({ code: 'unsupported_version' });
  });

  it('refuses an archive that stops before its trailer, or is empty, as truncated', async () => {
    expect(await refusal([JSON.stringify(header), table('a'), '{"id": 1}'])).toMatchObject({ code: 'truncated' });
    expect(await refusal([])).toMatchObject({ code: 'truncated' });
  });

  it('refuses counts that do not match, tables out of the header\'s order, and anything after the trailer', async () => {
    expect(await refusal([JSON.stringify(header), table('a'), '{"id": 1}', table('b'), trailer({ a: 2, b: 0 })]))
      .toMatchObject({ code: 'count_mismatch', details: { mismatched: [{ table: 'a', expected: 2, read: 1 }] } });
    expect(await refusal([JSON.stringify(header), table('a'), trailer({ a: 0, b: 0 })])).toMatchObject({ code: 'count_mismatch', details: { mismatched: [{ table: 'b', expected: 0, read: null }] } });
    expect(await refusal([JSON.stringify(header), table('b')])).toMatchObject({ code: 'corrupt' });
    expect(await refusal([JSON.stringify(header), '{"id": 1}'])).toMatchObject({ code: 'corrupt' });
    expect(await refusal([JSON.stringify(header), table('a'), table('b'), trailer({ a: 0, b: 0 }), '{"id": 1}'])).toMatchObject({ code: 'corrupt' });
  });
});
