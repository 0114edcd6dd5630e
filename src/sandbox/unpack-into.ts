import { lstat, realpath, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { FileSink } from './file-sink.js';
import { PendingFileWrites } from './pending-file-writes.js';
import { SYNC_FILE_BYTES, SyncFileWrites } from './sync-file-writes.js';
import { TimeSlices } from './time-slices.js';
import type { FileIdentity } from './tree-marks.js';
import { entryPath } from './tar-entry-path.js';
import { type TarEvent, type TarHeader, TarReader } from './tar-reader.js';
import { VerifiedDirectories } from './verified-directories.js';

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
  const writes = new PendingFileWrites();
  const entries = new EntryWriter(root, new VerifiedDirectories(root, () => syncWrites.enabled), writes, syncWrites, written);
  const reader = new TarReader();
  const slices = new TimeSlices();
  let bytes = 0;
  let refusal: unknown = null;
  try {
    // Leaving this loop by a throw destroys the stream, so its producer does not wait forever.
    for await (const chunk of tar as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      try {
        for (const event of reader.read(chunk)) {
          // Each await costs a turn of the microtask queue: with 10,000 entries, only await what is pending.
          const step = entries.take(event);
          if (step) await step;
          if (event.kind !== 'end') continue;
          const slice = slices.yieldIfDue();
          if (slice) await slice;
        }
      } catch (error) {
        refusal = error;
        throw error;
      }
    }
    reader.finish();
    await writes.settle();
    writes.throwIfFailed();
  } catch (error) {
    entries.abandon();
    await writes.settle();
    // A broken stream says why itself; a refusal may follow a file that failed to write before it.
    throw error === refusal ? writes.failure ?? error : error;
  }
  // Even an empty tree is 1 KiB of end-of-archive marker: no bytes at all means the tree was lost on the way.
  if (bytes === 0) throw new Error('the archive is empty (not even an end-of-archive marker): the tree did not arrive');
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

/** The entry being written: its content gathered for one synchronous write, streamed to a file, or not content at all. */
type Current =
  | { kind: 'gather'; path: string; name: string; mode: number; parts: Buffer[] }
  | { kind: 'stream'; path: string; name: string; sink: FileSink }
  | { kind: 'none' };

const NONE: Current = { kind: 'none' };

/** Writes the reader's entries as they come: most steps finish at once and answer undefined, not a promise. */
class EntryWriter {
  private current: Current = NONE;

  constructor(
    private readonly root: string,
    private readonly directories: VerifiedDirectories,
    private readonly writes: PendingFileWrites,
    private readonly syncWrites: SyncFileWrites,
    private readonly written: WrittenFiles | undefined,
  ) {}

  take(event: TarEvent): Promise<void> | undefined {
    switch (event.kind) {
      case 'header':
        return this.begin(event.header);
      case 'data':
        return this.data(event.bytes);
      case 'end':
        return this.end();
    }
  }

  /** After a failure: a file still open is closed (the unpack waits for it with the rest). */
  abandon(): void {
    const current = this.current;
    this.current = NONE;
    if (current.kind === 'stream') this.writes.add(current.path, current.sink.finish(), refusalOf(current.name));
  }

  private begin(header: TarHeader): Promise<void> | undefined {
    this.writes.throwIfFailed();
    const { name } = header;
    const path = entryPath(name);
    this.written?.files.delete(path); // whatever is written there now, an identity noted before is not its own
    return refusing(name, () => {
      if (path === '') {
        if (header.type === 'directory') return undefined;
        throw new Error('it names the directory itself');
      }
      const pending = this.writes.before(path);
      // A failure after the wait is told by this `refusing` too: wrapped once, not twice.
      return pending ? pending.then(() => this.place(header, path)) : this.place(header, path);
    });
  }

  private place(header: TarHeader, path: string): Promise<void> | undefined {
    const { name, type, mode, linkname } = header;
    switch (type) {
      case 'file':
      case 'contiguous-file': {
        const fileMode = (mode & 0o111) !== 0 ? 0o755 : 0o644;
        const parent = this.directories.prepareParentOf(path);
        return parent ? parent.then(() => this.open(name, path, fileMode, header.size)) : this.open(name, path, fileMode, header.size);
      }
      case 'directory':
        return this.directories.placeDirectory(path);
      case 'symlink':
        if (!linkname) throw new Error('the link has no target');
        return (async () => {
          await this.directories.prepareParentOf(path);
          await placeSymlink(join(this.root, path), linkname);
        })();
      default:
        throw new Error(`${type ?? 'unknown'} entries are not supported (only files, directories and symbolic links)`);
    }
  }

  private open(name: string, path: string, mode: number, size: number): undefined {
    if (this.syncWrites.enabled && size <= SYNC_FILE_BYTES) {
      this.current = { kind: 'gather', path, name, mode, parts: [] };
      return undefined;
    }
    if (this.written) this.written.complete = false;
    this.current = { kind: 'stream', path, name, sink: new FileSink(join(this.root, path), mode) };
    return undefined;
  }

  private data(bytes: Buffer): Promise<void> | undefined {
    const current = this.current;
    if (current.kind === 'gather') current.parts.push(bytes);
    else if (current.kind === 'stream' && !current.sink.write(bytes)) return current.sink.drained();
    return undefined;
  }

  private end(): undefined {
    const current = this.current;
    this.current = NONE;
    if (current.kind === 'stream') this.writes.add(current.path, current.sink.finish(), refusalOf(current.name));
    if (current.kind !== 'gather') return undefined;
    const { path, name, mode, parts } = current;
    refusing(name, () => {
      const content = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      const identity = this.syncWrites.write(`${this.root}/${path}`, content, mode, this.written !== undefined);
      if (identity) this.written?.files.set(path, identity);
      return undefined;
    });
    return undefined;
  }
}

/** Runs a step of entry `name`, its failure (at once or later) told as that entry's refusal. */
function refusing(name: string, step: () => Promise<void> | undefined): Promise<void> | undefined {
  const refusal = refusalOf(name);
  let pending: Promise<void> | undefined;
  try {
    pending = step();
  } catch (error) {
    throw refusal(error);
  }
  return pending?.catch((error: unknown) => {
    throw refusal(error);
  });
}

function refusalOf(name: string): (error: unknown) => Error {
  return (error) => new Error(`tar entry "${name}" is refused: ${(error as Error).message}`, { cause: error });
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
