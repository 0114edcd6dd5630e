import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { TimeSlices } from './time-slices.js';
import type { TreeMark } from './tree-entry.js';

/**
 * A file's identity as git's index keeps it to skip unchanged files: any write, truncation,
 * chmod, link or rename gives the file a new change time (which no unprivileged process can set
 * back), and a file put in its place is another inode.
 */
interface FileIdentity {
  ino: number;
  size: number;
  mode: number;
  /** Milliseconds with a fraction (to a fraction of a microsecond): the kernel's clock ticks are milliseconds apart. */
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * A file whose change time is this close to the start of the mark, or later, is not vouched for:
 * the kernel stamps times from a clock that advances by ticks (1–10 ms), so a write in the same
 * tick right after the mark could leave every time as noted. Any later write is stamped at least
 * the mark's start minus one tick, which is after every change time noted.
 */
const RACY_MS = 20;

/** What `noteTree` saw of one sandbox, by mark (a mark of another sandbox vouches for nothing here). */
export class TreeMarks {
  private readonly marks = new WeakMap<TreeMark, Map<string, FileIdentity>>();

  /**
   * Notes every regular file under `root` (paths `/`-separated, relative to it) and answers the
   * mark. `now`: when the mark starts (tests set it to place a file's change time against it).
   */
  async note(root: string, paths: Iterable<{ path: string; isFile: boolean }>, now = Date.now()): Promise<TreeMark> {
    const mark: TreeMark = { takenAt: now };
    const cutoff = mark.takenAt - RACY_MS;
    const files = new Map<string, FileIdentity>();
    const slices = new TimeSlices();
    for (const { path, isFile } of paths) {
      if (!isFile) continue;
      await slices.yieldIfDue();
      const stats = lstatSync(join(root, path), { throwIfNoEntry: false });
      if (stats?.isFile() && stats.ctimeMs < cutoff) files.set(path, identityOf(stats));
    }
    this.marks.set(mark, files);
    return mark;
  }

  /**
   * Whether the file at `path` is still the one `mark` noted, judged from its `lstat`; false for
   * anything not noted (a mark of another sandbox, a file written just before the mark).
   */
  unchangedSince(mark: TreeMark | undefined, path: string, stats: Stats): boolean {
    const noted = mark ? this.marks.get(mark)?.get(path) : undefined;
    if (!noted || !stats.isFile()) return false;
    const now = identityOf(stats);
    return now.ino === noted.ino && now.size === noted.size && now.mode === noted.mode
      && now.mtimeMs === noted.mtimeMs && now.ctimeMs === noted.ctimeMs;
  }

  /** Whether `mark` was taken here: only then does `unchangedSince` need a file's `lstat`. */
  has(mark: TreeMark | undefined): mark is TreeMark {
    return mark !== undefined && this.marks.has(mark);
  }
}

function identityOf(stats: Stats): FileIdentity {
  return { ino: stats.ino, size: stats.size, mode: stats.mode, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}
