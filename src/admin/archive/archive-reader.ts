import { ARCHIVE_FORMAT, ARCHIVE_VERSION, type ArchiveHeader, type ArchiveTrailer, type ControlRecord, isControlLine } from './archive-format.js';
import { unusableArchive } from './archive-refused.js';

/** What a restore applies, in the order the archive holds it. Rows are the lines as written, never parsed here. */
export type ArchivePart =
  | { kind: 'header'; header: ArchiveHeader }
  | { kind: 'table'; name: string }
  | { kind: 'rows'; table: string; rows: string[] }
  | { kind: 'trailer'; trailer: ArchiveTrailer };

/** Rows handed over at once: at most this many, or this many characters (whichever comes first). */
const BATCH_ROWS = 1000;
const BATCH_CHARS = 4 * 1024 * 1024;

/**
 * Reads an archive's lines into parts, checking its structure as it goes: the header first (format
 * and version this release reads), then the header's tables in its order, then a trailer whose row
 * counts match the rows read, then nothing. Any departure is a 422; an archive that stops before its
 * trailer is `truncated`. The last check comes after the last row: a caller applies rows as they
 * come, inside a transaction it rolls back when this throws.
 */
export async function* readArchive(lines: AsyncIterable<string>): AsyncGenerator<ArchivePart> {
  let header: ArchiveHeader | null = null;
  let tableIndex = -1;
  let table: string | null = null;
  let batch: string[] = [];
  let batchChars = 0;
  const counted: Record<string, number> = {};
  const flush = function* (): Generator<ArchivePart> {
    if (table !== null && batch.length > 0) yield { kind: 'rows', table, rows: batch };
    batch = [];
    batchChars = 0;
  };

  let lineNumber = 0;
  let trailer: ArchiveTrailer | null = null;
  for await (const line of lines) {
    lineNumber += 1;
    if (trailer) throw unusableArchive('corrupt', `the archive goes on after its trailer (line ${lineNumber})`);
    if (header === null) {
      header = readHeader(line);
      yield { kind: 'header', header };
      continue;
    }
    if (!isControlLine(line)) {
      if (table === null) throw unusableArchive('corrupt', `line ${lineNumber} is a row before any table was opened`);
      batch.push(line);
      batchChars += line.length;
      counted[table] = (counted[table] ?? 0) + 1;
      if (batch.length >= BATCH_ROWS || batchChars >= BATCH_CHARS) yield* flush();
      continue;
    }
    const record = parseControl(line, lineNumber);
    yield* flush();
    if (record['@'] === 'table') {
      const expected = header.tables[tableIndex + 1]?.name;
      if (record.name !== expected) {
        throw unusableArchive('corrupt', `line ${lineNumber} opens table ${JSON.stringify(record.name)} where the header lists ${expected === undefined ? 'no more tables' : expected}`);
      }
      tableIndex += 1;
      table = record.name;
      counted[table] = 0;
      yield { kind: 'table', name: table };
    } else if (record['@'] === 'trailer') {
      trailer = checkTrailer(record, header, counted);
    } else {
      throw unusableArchive('corrupt', `line ${lineNumber} is a control record out of place (${JSON.stringify(record['@'])})`);
    }
  }
  if (header === null) throw unusableArchive('truncated', 'the archive is empty');
  if (trailer === null) throw unusableArchive('truncated', `the archive stops after line ${lineNumber}, before its trailer: it was cut short`);
  yield { kind: 'trailer', trailer };
}

function readHeader(line: string): ArchiveHeader {
  let header: Partial<ArchiveHeader>;
  try {
    header = isControlLine(line) ? JSON.parse(line) : {};
  } catch {
    throw unusableArchive('corrupt', 'the first line is not a readable archive header');
  }
  if (header['@'] !== 'header' || header.format !== ARCHIVE_FORMAT) {
    throw unusableArchive('unsupported_format', `this is not a ${ARCHIVE_FORMAT} archive (its first line is no ${ARCHIVE_FORMAT} header)`);
  }
  if (header.version !== ARCHIVE_VERSION) {
    throw unusableArchive('unsupported_version', `the archive is format version ${JSON.stringify(header.version)}; this release reads version ${ARCHIVE_VERSION} only`, { version: header.version ?? null });
  }
  if (typeof header.schema !== 'string' || !Array.isArray(header.tables) || header.tables.some((t) => typeof t?.name !== 'string' || !Array.isArray(t.columns))) {
    throw unusableArchive('corrupt', 'the archive header lacks its schema or its table list');
  }
  return header as ArchiveHeader;
}

function parseControl(line: string, lineNumber: number): ControlRecord {
  try {
    return JSON.parse(line) as ControlRecord;
  } catch {
    throw unusableArchive('corrupt', `line ${lineNumber} is not valid JSON`);
  }
}

/** Every table of the header was opened, and holds as many rows as the trailer says were written. */
function checkTrailer(trailer: ArchiveTrailer, header: ArchiveHeader, counted: Record<string, number>): ArchiveTrailer {
  const mismatched = header.tables
    .map((t) => ({ table: t.name, expected: trailer.rows?.[t.name] ?? null, read: counted[t.name] ?? null }))
    .filter((c) => c.expected !== c.read);
  if (mismatched.length > 0) {
    throw unusableArchive('count_mismatch', `the rows read do not match the trailer's counts (${mismatched.map((m) => m.table).join(', ')}): rows were lost or added`, { mismatched });
  }
  if (!Array.isArray(trailer.sequences)) throw unusableArchive('corrupt', 'the trailer lacks its sequences');
  return trailer;
}
