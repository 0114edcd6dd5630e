import { createReadStream, type Stats } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Header, type Pack, pack } from 'tar-stream';

type EntryHeader = Partial<Header> & Pick<Header, 'name'>;

/** Files up to this size are read in one call: a source tree is mostly such files, and a stream each costs more. */
const READ_WHOLE_UP_TO = 64 * 1024;
/** How many entries past the one being added are looked up (small files read) meanwhile: at most 1 MB held. */
const LOOK_AHEAD = 16;

/** A path of the tree with what the archive needs of it. */
interface Found {
  path: string;
  stats: Stats;
  /** A small file's content, read ahead; a larger one is streamed when its turn comes. */
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

/** Adds the tree in order, looking up the next few paths while one is added (one lookup at a time is slow). */
async function addTree(archive: Pack, root: string): Promise<void> {
  const paths = treePaths(root, '');
  const ahead: Promise<Found | null>[] = [];
  const lookUpNext = () => {
    const found = paths.next().then((next) => (next.done ? null : lookUp(root, next.value)));
    found.catch(() => undefined); // awaited in turn; an abandoned walk must not leave it unhandled
    ahead.push(found);
  };
  for (let i = 0; i < LOOK_AHEAD; i += 1) lookUpNext();
  for (let found = await ahead.shift()!; found !== null; found = await ahead.shift()!) {
    lookUpNext();
    await addEntry(archive, root, found);
  }
}

/** Every path under `dir`, depth first, each directory's names sorted (by UTF-16 code unit, as JavaScript sorts). */
async function* treePaths(root: string, dir: string): AsyncGenerator<string> {
  const names = (await readdir(join(root, dir), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of names) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    yield path;
    if (entry.isDirectory()) yield* treePaths(root, path);
  }
}

async function lookUp(root: string, path: string): Promise<Found> {
  const full = join(root, path);
  const stats = await lstat(full);
  if (stats.isSymbolicLink()) return { path, stats, linkname: await readlink(full) };
  if (stats.isFile() && stats.size <= READ_WHOLE_UP_TO) return { path, stats, content: await readFile(full) };
  return { path, stats };
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
