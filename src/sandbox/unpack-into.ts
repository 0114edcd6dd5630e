import { lstat, realpath, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ExtractEvents, extract } from 'tar-stream';
import { FileSink } from './file-sink.js';
import { PendingFileWrites } from './pending-file-writes.js';
import { SYNC_FILE_BYTES, SyncFileWrites } from './sync-file-writes.js';
import { TimeSlices } from './time-slices.js';
import type { FileIdentity } from './tree-marks.js';
import { entryPath } from './tar-entry-path.js';
import { VerifiedDirectories } from './verified-directories.js';

/** One entry of an archive being read: its header, and its content as a stream. */
type Entry = ExtractEvents['entry'][1];

/**
 * Unpacks a tar stream into `dir` (which must exist), streaming: file contents go to disk as they
 * arrive, the opening, writing and closing of a few files at a time finishing behind the reading
 * (so a tree of thousands of files is not one disk round trip after another), never more than a
 * few MB of content waiting. It takes regular files (mode 0755 if any executable bit is set, else
 * 0644), directories (0755) and symbolic links (made as links, whatever they point at), replacing
 * files and links already there; ownership and times are not restored. Every file is closed
 * before the returned promise settles.
 *
 * It stops at the first entry it refuses, rejecting with an Error naming it (entries before it stay
 * written): a path that is absolute or climbs out with `..`, a path below a symbolic link or a
 * file (nothing is written through a link, wherever it points), and hard links, devices and FIFOs
 * (none of which a repository tree needs). A file that cannot be written (a directory in its way,
 * no space) is found while it is being written, so a few entries after it (at most 16 files) may
 * be written before the unpack stops and names it. The tar stream is destroyed when the unpack
 * fails, so its producer does not wait forever.
 */
export async function unpackInto(dir: string, tar: Readable, syncWrites = new SyncFileWrites(), written?: WrittenFiles): Promise<void> {
  const root = await realpath(dir).catch((error: unknown) => {
    tar.destroy();
    throw error;
  });
  const directories = new VerifiedDirectories(root, () => syncWrites.enabled);
  const writes = new PendingFileWrites();
  const slices = new TimeSlices();
  const entries = extract();
  const counter = byteCounter();
  const feeding = pipeline(tar, counter.stream, entries);
  feeding.catch(() => undefined); // awaited below, whichever way the loop ends
  try {
    for await (const entry of entries) {
      writes.throwIfFailed();
      await writeEntry(root, directories, writes, syncWrites, entry, written);
      // Each await costs a turn of the microtask queue: with 10,000 entries, only await what is pending.
      const slice = slices.yieldIfDue();
      if (slice) await slice;
    }
    await writes.settle();
    writes.throwIfFailed();
  } catch (error) {
    await writes.settle();
    throw (await feedFailure(feeding)) ?? writes.failure ?? error;
  }
  await feeding;
  // Even an empty tree is 1 KiB of end-of-archive marker: no bytes at all means the tree was lost on the way.
  if (counter.bytes() === 0) throw new Error('the archive is empty (not even an end-of-archive marker): the tree did not arrive');
}

/**
 * What unpacks wrote, for a mark taken from it instead of a look at the whole tree
 * (`TreeMarks.noteWritten`): each file written synchronously, with its identity as written;
 * `complete` stays true while no file was written any other way.
 */
export class WrittenFiles {
  readonly files = new Map<string, FileIdentity>();
  complete = true;
}

/** Passes bytes through, counting them. */
export function byteCounter(): { stream: Transform; bytes(): number } {
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, bytes: () => bytes };
}

/**
 * Why the feed failed, if that is why the unpack stopped: a truncated or broken stream shows in
 * the entry being written only as "destroyed". Leaving the loop on a refusal cuts the feed short
 * ("Premature close"), which is the refusal's doing and says nothing.
 */
async function feedFailure(feeding: Promise<void>): Promise<Error | undefined> {
  const error = await feeding.then(() => undefined, (failure: NodeJS.ErrnoException) => failure);
  return error?.code === 'ERR_STREAM_PREMATURE_CLOSE' ? undefined : error;
}

async function writeEntry(root: string, directories: VerifiedDirectories, writes: PendingFileWrites, syncWrites: SyncFileWrites, entry: Entry, written?: WrittenFiles): Promise<void> {
  const { name, type, mode, linkname } = entry.header;
  const path = entryPath(name);
  written?.files.delete(path); // whatever is written there now, an identity noted before is not its own
  const refusal = (error: unknown) => new Error(`tar entry "${name}" is refused: ${(error as Error).message}`, { cause: error });
  try {
    if (path === '') {
      if (type === 'directory') return;
      throw new Error('it names the directory itself');
    }
    const pending = writes.before(path);
    if (pending) await pending;
    switch (type) {
      case 'file':
      case 'contiguous-file': {
        const parent = directories.prepareParentOf(path);
        if (parent) await parent;
        const fileMode = mode !== undefined && (mode & 0o111) !== 0 ? 0o755 : 0o644;
        if (syncWrites.enabled && (entry.header.size ?? 0) <= SYNC_FILE_BYTES) {
          const chunks: Buffer[] = [];
          for await (const chunk of entry) chunks.push(chunk as Buffer);
          const identity = syncWrites.write(`${root}/${path}`, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), fileMode, written !== undefined);
          if (identity) written?.files.set(path, identity);
          return;
        }
        if (written) written.complete = false;
        const sink = new FileSink(join(root, path), fileMode);
        try {
          for await (const chunk of entry) if (!sink.write(chunk as Buffer)) await sink.drained();
        } finally {
          writes.add(path, sink.finish(), refusal);
        }
        return;
      }
      case 'directory':
        return await directories.placeDirectory(path);
      case 'symlink':
        if (!linkname) throw new Error('the link has no target');
        await directories.prepareParentOf(path);
        return await placeSymlink(join(root, path), linkname);
      default:
        throw new Error(`${type ?? 'unknown'} entries are not supported (only files, directories and symbolic links)`);
    }
  } catch (error) {
    throw refusal(error);
  }
}

async function placeSymlink(target: string, linkname: string): Promise<void> {
  try {
    await symlink(linkname, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if ((await lstat(target)).isDirectory()) throw new Error('a directory is in the way', { cause: error });
    await unlink(target);
    await symlink(linkname, target);
  }
}
