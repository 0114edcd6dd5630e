/** An entry's kind, named as tar-stream names them (the rest of the code and its messages use these names). */
export type TarEntryType =
  | 'file' | 'link' | 'symlink' | 'character-device' | 'block-device' | 'directory' | 'fifo' | 'contiguous-file';

export interface TarHeader {
  name: string;
  /** null: a type flag this reader does not know. */
  type: TarEntryType | null;
  mode: number;
  size: number;
  linkname: string | null;
}

/** What reading a chunk found, in archive order: an entry's header, its content in parts, its end. */
export type TarEvent =
  | { kind: 'header'; header: TarHeader }
  | { kind: 'data'; bytes: Buffer }
  | { kind: 'end' };

const BLOCK = 512;
const END: TarEvent = { kind: 'end' };
/** Pax and GNU long-name records are read whole: larger ones are refused, as tar-stream refuses them. */
const MAX_LONG_HEADER_BYTES = 1024 * 1024;
const TYPES: Record<number, TarEntryType> = {
  0: 'file', 1: 'link', 2: 'symlink', 3: 'character-device', 4: 'block-device', 5: 'directory', 6: 'fifo', 7: 'contiguous-file',
};
const PAX_HEADER = 0x78 - 0x30; // 'x'
const PAX_GLOBAL_HEADER = 0x67 - 0x30; // 'g'
const GNU_LONG_PATH = 0x4c - 0x30; // 'L'
const GNU_LONG_LINK_PATH = 0x4b - 0x30; // 'K'
const USTAR_MAGIC = Buffer.from('ustar\0', 'latin1');
const GNU_MAGIC = Buffer.from('ustar ', 'latin1');
const GNU_VERSION = Buffer.from(' \0', 'latin1');

type LongHeaders = { pax: Record<string, string> | null; longPath: string | null; longLinkPath: string | null };

/**
 * A tar reader fed chunk by chunk, with no stream per entry: an unpack of 10,000 small files
 * through tar-stream spent more time in its per-entry streams and their turns of the event loop
 * than in writing the files. It reads what tar-stream reads (ustar and GNU headers, pax `path`,
 * `linkpath` and `size`, GNU long names, base-256 sizes) and fails the same ways: a header whose
 * checksum does not hold ("Invalid tar header"), an archive that ends inside an entry or a
 * header ("Unexpected end of data"). Content comes as views of the chunks fed, not copies: a
 * small file inside one chunk is written straight from it.
 */
export class TarReader {
  /** Bytes of a header or long-header record that arrived split across chunks. */
  private partial: Buffer | null = null;
  /** Content bytes of the current entry still to come, then its padding. */
  private contentLeft = 0;
  private paddingLeft = 0;
  /** A pax or GNU long-name record being gathered (its header read, its content not yet whole). */
  private longRecord: { type: number; size: number } | null = null;
  private globalPax: Record<string, string> | null = null;
  private readonly long: LongHeaders = { pax: null, longPath: null, longLinkPath: null };

  *read(chunk: Buffer): Generator<TarEvent> {
    let at = 0;
    while (at < chunk.length) {
      if (this.contentLeft > 0) {
        const take = Math.min(this.contentLeft, chunk.length - at);
        this.contentLeft -= take;
        yield { kind: 'data', bytes: chunk.subarray(at, at + take) };
        at += take;
        if (this.contentLeft === 0) yield END;
        continue;
      }
      if (this.paddingLeft > 0) {
        const skip = Math.min(this.paddingLeft, chunk.length - at);
        this.paddingLeft -= skip;
        at += skip;
        continue;
      }
      // A header block, or a long-header record: read whole, from this chunk or gathered across several.
      const need = this.longRecord ? padded(this.longRecord.size) : BLOCK;
      let block: Buffer;
      if (this.partial === null && chunk.length - at >= need) {
        block = chunk.subarray(at, at + need);
        at += need;
      } else {
        const have = this.partial?.length ?? 0;
        const take = Math.min(need - have, chunk.length - at);
        this.partial = this.partial ? Buffer.concat([this.partial, chunk.subarray(at, at + take)]) : Buffer.from(chunk.subarray(at, at + take));
        at += take;
        if (this.partial.length < need) continue;
        block = this.partial;
        this.partial = null;
      }
      if (this.longRecord) {
        this.takeLongRecord(this.longRecord.type, block.subarray(0, this.longRecord.size));
        this.longRecord = null;
        continue;
      }
      const event = this.header(block);
      if (event) {
        yield event;
        if (this.contentLeft === 0) yield END;
      }
    }
  }

  /** The archive has ended: throws when it ended inside an entry or a header. */
  finish(): void {
    if (this.partial !== null || this.contentLeft > 0 || this.paddingLeft > 0 || this.longRecord !== null) {
      throw new Error('Unexpected end of data');
    }
  }

  /** A header block: the entry it starts (null for an end-of-archive block or a long-header record). */
  private header(block: Buffer): TarEvent | null {
    const sum = checksum(block);
    if (sum === 8 * 32) return null; // an all-zero block: the end-of-archive marker (skipped, as tar-stream does)
    if (sum !== octal(block, 148, 8)) throw new Error('Invalid tar header. Maybe the tar is corrupted or it needs to be gunzipped?');
    const ustar = block.subarray(257, 263).equals(USTAR_MAGIC);
    if (!ustar && !(block.subarray(257, 263).equals(GNU_MAGIC) && block.subarray(263, 265).equals(GNU_VERSION))) {
      throw new Error('Invalid tar header: unknown format.');
    }
    let flag = block[156] === 0 ? 0 : block[156]! - 0x30;
    const size = octal(block, 124, 12);
    if (flag === PAX_HEADER || flag === PAX_GLOBAL_HEADER || flag === GNU_LONG_PATH || flag === GNU_LONG_LINK_PATH) {
      if (size > MAX_LONG_HEADER_BYTES) throw new Error('Header exceeds max size');
      if (size > 0) this.longRecord = { type: flag, size };
      return null;
    }
    let name = text(block, 0, 100);
    if (ustar && block[345] !== 0) name = `${text(block, 345, 155)}/${name}`;
    if (flag === 0 && name.endsWith('/')) flag = 5; // old archives mark directories by the trailing slash
    const header: TarHeader = { name, type: TYPES[flag] ?? null, mode: octal(block, 100, 8), size, linkname: block[157] === 0 ? null : text(block, 157, 100) };
    this.applyLongHeaders(header);
    if (!(header.size >= 0) || !Number.isSafeInteger(header.size)) throw new Error('Invalid header');
    // A directory's size, if any, is not content (tar-stream's reading too).
    const contentBytes = header.type === 'directory' ? 0 : header.size;
    this.contentLeft = contentBytes;
    this.paddingLeft = padded(contentBytes) - contentBytes;
    return { kind: 'header', header };
  }

  private takeLongRecord(type: number, record: Buffer): void {
    if (type === GNU_LONG_PATH) this.long.longPath = text(record, 0, record.length);
    else if (type === GNU_LONG_LINK_PATH) this.long.longLinkPath = text(record, 0, record.length);
    else if (type === PAX_GLOBAL_HEADER) this.globalPax = paxRecords(record);
    else this.long.pax = { ...this.globalPax, ...paxRecords(record) };
  }

  private applyLongHeaders(header: TarHeader): void {
    const { pax, longPath, longLinkPath } = this.long;
    if (longPath !== null) header.name = longPath;
    if (longLinkPath !== null) header.linkname = longLinkPath;
    if (pax) {
      if (pax.path) header.name = pax.path;
      if (pax.linkpath) header.linkname = pax.linkpath;
      if (pax.size) header.size = Number.parseInt(pax.size, 10);
    }
    this.long.pax = null;
    this.long.longPath = null;
    this.long.longLinkPath = null;
  }
}

function padded(bytes: number): number {
  return Math.ceil(bytes / BLOCK) * BLOCK;
}

/** The header's checksum: its bytes summed, the checksum field counted as spaces. */
function checksum(block: Buffer): number {
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += block[i]!;
  for (let i = 156; i < BLOCK; i++) sum += block[i]!;
  return sum;
}

/** A numeric field: octal (leading spaces and zeros allowed, ended by a space or NUL), or base-256 when its top bit is set. */
function octal(block: Buffer, offset: number, length: number): number {
  if ((block[offset]! & 0x80) !== 0) return base256(block.subarray(offset, offset + length));
  let at = offset;
  const end = offset + length;
  while (at < end && block[at] === 0x20) at++;
  let value = 0;
  let digits = 0;
  for (; at < end; at++) {
    const byte = block[at]!;
    if (byte === 0x20 || byte === 0) break;
    if (byte < 0x30 || byte > 0x37) return Number.NaN;
    value = value * 8 + (byte - 0x30);
    digits++;
  }
  return digits === 0 ? 0 : value;
}

function base256(field: Buffer): number {
  const negative = field[0] === 0xff;
  if (!negative && field[0] !== 0x80) return Number.NaN;
  let value = 0;
  for (let i = 1; i < field.length; i++) value = value * 256 + (negative ? 0xff - field[i]! : field[i]!);
  return negative ? -value : value;
}

/** A NUL-terminated UTF-8 field. */
function text(block: Buffer, offset: number, length: number): string {
  const nul = block.indexOf(0, offset);
  return block.toString('utf8', offset, nul < 0 || nul > offset + length ? offset + length : nul);
}

/** Pax records, `<length> <key>=<value>\n` each; reading stops at the first malformed one. */
function paxRecords(record: Buffer): Record<string, string> {
  const result: Record<string, string> = {};
  let rest = record;
  while (rest.length > 0) {
    const space = rest.indexOf(0x20);
    const length = Number.parseInt(rest.toString('latin1', 0, space < 0 ? rest.length : space), 10);
    if (!length || space < 0 || length > rest.length) return result;
    const entry = rest.toString('utf8', space + 1, length - 1);
    const equals = entry.indexOf('=');
    if (equals < 0) return result;
    result[entry.slice(0, equals)] = entry.slice(equals + 1);
    rest = rest.subarray(length);
  }
  return result;
}
