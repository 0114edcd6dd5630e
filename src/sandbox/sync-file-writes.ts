import { closeSync, constants, fchmodSync, fstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
// FileSink's flags: a link is never written through, and a FIFO fails (ENXIO) or opens at once
// instead of blocking; either way it is replaced.
import { FILE_FLAGS } from './file-sink.js';
import { type FileIdentity, identityOf } from './tree-marks.js';

/** Files up to this size may be written synchronously: read whole from the archive, written in one call. */
export const SYNC_FILE_BYTES = 256 * 1024;
/** Synchronous writes are timed in windows of this many files. */
const WINDOW_FILES = 64;
/** Mean time per synchronous file write above which the rest of the unpack writes asynchronously. */
const SLOW_FILE_MS = 0.25;

/**
 * Whether an unpack writes its small files synchronously (the unpack runs them in `TimeSlices`).
 * Where creating a file is cheap, an asynchronous write (open, write, chmod, close) costs four
 * thread-pool round trips, far more than the write: 10,000 files of 5 KB took 1.95 s
 * asynchronously and 0.2 s synchronously on tmpfs. Where creating a file costs the kernel much
 * more (0.5–1 ms each on the bench machine's disk), asynchronous writes sixteen at a time can
 * keep every core busy in the kernel (once 5.3 s against 11.1 s there); on that disk the first
 * files were quick (0.12–0.18 ms) and later ones slowed down as the disk fell behind. So an
 * unpack starts synchronous and falls back to asynchronous writes for the rest once a window of
 * files was slow.
 */
export class SyncFileWrites {
  private readonly slowFileMs: number;
  private readonly windowSize: number;
  private windowFiles = 0;
  private windowMs = 0;
  private slow = false;
  /** Modes a newly created file was seen to get exactly (the umask leaves them whole): no `fchmod` needed. */
  private readonly modesKeptOnCreate = new Set<number>();

  /** The thresholds are for tests: `slowFileMs` −1 and `windowFiles` 1 switch to asynchronous writes after the first file. */
  constructor(options: { slowFileMs?: number; windowFiles?: number } = {}) {
    this.slowFileMs = options.slowFileMs ?? SLOW_FILE_MS;
    this.windowSize = options.windowFiles ?? WINDOW_FILES;
  }

  /** True while small files should be written with `write`. */
  get enabled(): boolean {
    return !this.slow;
  }

  /**
   * Writes one small file now: a link at `target` is replaced, never followed; a directory there
   * is an error. `identify`: answer the file's identity as written (its `fstat` before closing).
   */
  write(target: string, content: Buffer, mode: number, identify = false): FileIdentity | undefined {
    const started = performance.now();
    // Into a fresh tree almost every file is new: O_EXCL creates it (never through a link) or fails.
    const created = tryCreate(target, mode);
    const fd = created ?? openReplacingLink(target, mode);
    let identity: FileIdentity | undefined;
    try {
      for (let offset = 0; offset < content.byteLength;) offset += writeSync(fd, content, offset);
      // open's mode applies only to a new file, trimmed by the umask: set it unless a new file is known to get it whole.
      if (created === null || !this.keptOnCreate(fd, mode)) fchmodSync(fd, mode);
      if (identify) identity = identityOf(fstatSync(fd));
    } finally {
      closeSync(fd);
    }
    this.windowFiles += 1;
    this.windowMs += performance.now() - started;
    if (this.windowFiles >= this.windowSize) {
      if (this.windowMs / this.windowSize > this.slowFileMs) this.slow = true;
      this.windowFiles = 0;
      this.windowMs = 0;
    }
    return identity;
  }

  /** Whether a file just created with `mode` has it whole; looked at once per mode (one `fstat`), then remembered. */
  private keptOnCreate(fd: number, mode: number): boolean {
    if (this.modesKeptOnCreate.has(mode)) return true;
    if ((fstatSync(fd).mode & 0o7777) !== mode) return false;
    this.modesKeptOnCreate.add(mode);
    return true;
  }
}

/** A new regular file at `target`, or null when something is there already (of whatever kind, a link included). */
function tryCreate(target: string, mode: number): number | null {
  try {
    return openSync(target, FILE_FLAGS | constants.O_EXCL, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw error;
  }
}

/** Opens `target` as a regular file: a link, a FIFO or a device there is removed first, a directory is an error. */
function openReplacingLink(target: string, mode: number): number {
  let fd: number;
  try {
    fd = openSync(target, FILE_FLAGS, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new Error('a directory is in the way', { cause: error });
    if (code !== 'ELOOP' && code !== 'ENXIO') throw error;
    unlinkSync(target);
    return openSync(target, FILE_FLAGS, mode);
  }
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  unlinkSync(target);
  return openSync(target, FILE_FLAGS, mode);
}
