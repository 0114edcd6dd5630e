import { constants } from 'node:fs';
import { type FileHandle, open, unlink } from 'node:fs/promises';

// O_NOFOLLOW: a link where a file is to be written fails (ELOOP) instead of being written through.
// O_NONBLOCK: a FIFO without a reader fails (ENXIO) and is replaced, instead of holding a
// thread-pool thread until someone reads it.
export const FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** How much of one file's content may wait for the disk before its writer has to (a stream's high-water mark). */
const HIGH_WATER_MARK = 256 * 1024;

/**
 * Content on its way into one file, written behind the caller: the file is opened (replacing a
 * file or a link there: the link is removed, never followed) and chunks are queued behind the
 * open up to a high-water mark; `finish()` waits for them, sets the mode and closes the file.
 */
export class FileSink {
  private readonly opened: Promise<FileHandle>;
  private chain: Promise<unknown>;
  private queued = 0;

  constructor(target: string, private readonly mode: number) {
    this.opened = openReplacingLink(target, mode);
    this.chain = this.opened;
    quiet(this.opened);
  }

  /** Queues a chunk; false once enough is queued that the caller should wait for `drained()`. */
  write(chunk: Buffer): boolean {
    this.queued += chunk.byteLength;
    this.chain = this.chain.then(async () => {
      await writeAll(await this.opened, chunk);
      this.queued -= chunk.byteLength;
    });
    quiet(this.chain);
    return this.queued < HIGH_WATER_MARK;
  }

  async drained(): Promise<void> {
    await this.chain;
  }

  /** Waits for the queued writes, sets the mode (open's applies only to a new file, trimmed by the umask) and closes. */
  async finish(): Promise<void> {
    const file = await this.opened;
    try {
      await this.chain;
      await file.chmod(this.mode);
    } finally {
      await file.close();
    }
  }
}

/** Marks a promise whose failure is awaited later (in `finish`) as handled meanwhile, so it cannot crash the process. */
function quiet(promise: Promise<unknown>): void {
  promise.catch(() => undefined);
}

/** Opens `target` as a regular file: a link, a FIFO (read or not) or a device there is removed first, a directory is an error. */
async function openReplacingLink(target: string, mode: number): Promise<FileHandle> {
  let file: FileHandle;
  try {
    file = await open(target, FILE_FLAGS, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new Error('a directory is in the way', { cause: error });
    if (code !== 'ELOOP' && code !== 'ENXIO') throw error;
    await unlink(target);
    return await open(target, FILE_FLAGS, mode);
  }
  // A FIFO someone reads opens fine: the content would go to its reader, and no file be made.
  if ((await file.stat()).isFile()) return file;
  await file.close();
  await unlink(target);
  return await open(target, FILE_FLAGS, mode);
}

async function writeAll(file: FileHandle, chunk: Buffer): Promise<void> {
  for (let offset = 0; offset < chunk.byteLength;) {
    offset += (await file.write(chunk, offset)).bytesWritten;
  }
}
