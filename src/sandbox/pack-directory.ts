import { closeSync, constants, createReadStream, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Header, type Pack, pack } from 'tar-stream';
import { TimeSlices } from './time-slices.js';

type EntryHeader = Partial<Header> & Pick<Header, 'name'>;

/** Files up to this size are read in one call: a source tree is mostly such files, and a stream each costs more. */
const READ_WHOLE_UP_TO = 64 * 1024;

/** A path of the tree with what the archive needs of it. */
interface Found {
  path: string;
  stats: Stats;
  /** A small file's content; a larger one is streamed when its turn comes. */
  content?: Buffer;
  linkname?: string;
}

/**
 * The tree under `dir` as a tar stream, paths relative to it (`src/`, `src/main.ts`), in a fixed
 * order: each directory's names sorted, a directory before what it holds. Everything is included
 * (dot-files, `.git`); symbolic links are entries of their own, never followed. Files carry their
 * size, mode and modification time and are read from disk as the stream is consumed (back-pressure
 * holds the walk); sockets, FIFOs and devices are left out. A failure while walking or reading (a
 * file removed or resized meanwhile, say) is an error of the stream.
 */
export function packDirectory(dir: string): Readable {
  const archive = pack();
  addTree(archive, dir).then(() => archive.finalize(), (error: Error) => archive.destroy(error));
  // tar-stream's streams are streamx ones: hand out a Node stream, which callers can pipe anywhere.
  return Readable.from(archive, { objectMode: false });
}

/**
 * Adds the tree in order, with synchronous calls in `TimeSlices`: archiving 10,000 files of 5 KB
 * took 2.8 s through fs/promises (sixteen lookups at a time) and 0.7–0.85 s this way (the reads
 * 0.25 s of it) on the bench machine.
 */
async function addTree(archive: Pack, root: string): Promise<void> {
  const slices = new TimeSlices();
  for (const path of treePaths(root, '')) {
    await slices.yieldIfDue();
    await addEntry(archive, root, lookUp(root, path));
  }
}

/** Every path under `dir`, depth first, each directory's names sorted (by UTF-16 code unit, as JavaScript sorts). */
function* treePaths(root: string, dir: string): Generator<string> {
  const names = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of names) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    yield path;
    if (entry.isDirectory()) yield* treePaths(root, path);
  }
}

function lookUp(root: string, path: string): Found {
  const full = join(root, path);
  const stats = lstatSync(full);
  if (stats.isSymbolicLink()) return { path, stats, linkname: readlinkSync(full) };
  if (stats.isFile() && stats.size <= READ_WHOLE_UP_TO) return { path, stats, content: readRegularFile(full) };
  return { path, stats };
}

/**
 * A file's bytes, read synchronously: without following a link, and without blocking when a
 * command swapped the file for a FIFO since it was looked at (that is an error, as a file removed
 * meanwhile is), which would otherwise stall the whole server until someone wrote to it.
 */
function readRegularFile(full: string): Buffer {
  const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${full} is no longer a regular file`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function addEntry(archive: Pack, root: string, { path, stats, content, linkname }: Found): Promise<void> {
  const common = { mode: stats.mode & 0o777, mtime: stats.mtime };
  if (stats.isDirectory()) return added(archive, { name: `${path}/`, type: 'directory', ...common });
  if (stats.isSymbolicLink()) return added(archive, { name: path, type: 'symlink', linkname, ...common });
  if (!stats.isFile()) return Promise.resolve();
  const header: EntryHeader = { name: path, type: 'file', size: stats.size, ...common };
  return content ? added(archive, header, content) : addStreamedFile(archive, header, join(root, path));
}

/** Resolves once the entry is in the archive: tar-stream calls back only as the reader takes it in. */
function added(archive: Pack, header: EntryHeader, content?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error | null) => (error ? reject(error) : resolve());
    if (content) archive.entry(header, content, done);
    else archive.entry(header, done);
  });
}

function addStreamedFile(archive: Pack, header: EntryHeader, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const entry = archive.entry(header, (error) => (error ? reject(error) : resolve()));
    // Read no more than the size announced; a file that shrank meanwhile fails the entry ("Size mismatch").
    pipeline(createReadStream(path, { end: header.size! - 1 }), entry).catch(reject);
  });
}
