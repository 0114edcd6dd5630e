import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Header, extract, pack } from 'tar-stream';

export type TarEntry = Partial<Header> & Pick<Header, 'name'> & { content?: string | Buffer };

/** A tar stream of exactly these entries, in this order, as a test would hand one to a sandbox. */
export function tarOf(entries: TarEntry[]): Readable {
  const archive = pack();
  for (const { content, ...header } of entries) {
    if (content !== undefined) archive.entry(header, content);
    else archive.entry(header);
  }
  archive.finalize();
  return Readable.from(archive, { objectMode: false });
}

export interface ReadEntry {
  name: string;
  type: Header['type'];
  mode: number;
  size: number;
  linkname: string | null;
  content: string;
}

/** Every entry of a tar stream, in order, with its content as text. */
export async function readTar(tar: Readable): Promise<ReadEntry[]> {
  const entries = extract();
  const feeding = pipeline(tar, entries);
  feeding.catch(() => undefined);
  const read: ReadEntry[] = [];
  for await (const entry of entries) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const { name, type, mode, size, linkname } = entry.header;
    read.push({ name, type, mode, size, linkname: linkname ?? null, content: Buffer.concat(chunks).toString() });
  }
  await feeding;
  return read;
}
