import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { TimeSlices } from './time-slices.js';
import type { TreeMark } from './tree-entry.js';

/**
 * A file's identity as git's index keeps it to skip unchanged files: any write, truncation,
 * chmod, link or rename gives the file a new change time (which no unprivileged process can set
 * back), and a file put in its place is another inode.
 */
export interface FileIdentity {
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

/** What `note` saw of one sandbox's tree, by mark (a mark of another sandbox vouches for nothing here). */
export class TreeMarks {
  private readonly marks = new WeakMap<TreeMark, Map<string, FileIdentity>>();

  /**
   * Notes every regular file under `root` (paths `/`-separated, relative to it) and answers the
   * mark. `now`: when the mark starts (tests set it to place a file's change time against it).
   */
  async note(root: string, paths: Iterable<{ path: string; isFile: boolean }>, now = Date.now()): Promise<TreeMark> {
    const seen = new Map<string, FileIdentity>();
    const slices = new TimeSlices();
    for (const { path, isFile } of paths) {
      if (!isFile) continue;
      await slices.yieldIfDue();
      const stats = lookAt(root, path);
      if (stats?.isFile()) seen.set(path, identityOf(stats));
    }
    return this.noteWritten(seen, now);
  }

  /**
   * The same as `note`, from what the writer of each file saw of it right after writing it (its
   * `fstat`), instead of looking at the tree again: for a tree put in by an unpack that wrote every
   * file, before anything else ran in the sandbox. Either way, the files changed too close to the
   * mark are left out here.
   */
  noteWritten(written: ReadonlyMap<string, FileIdentity>, now = Date.now()): TreeMark {
    const mark: TreeMark = { takenAt: now };
    const cutoff = mark.takenAt - RACY_MS;
    const files = new Map<string, FileIdentity>();
    for (const [path, identity] of written) if (identity.ctimeMs < cutoff) files.set(path, identity);
    this.marks.set(mark, files);
    return mark;
  }

  /**
   * The file at `path` under `root` (its `lstat`) when it is still the one `mark` noted; null for
   * anything else, and for anything not noted (a mark of another sandbox, a file written just
   * before the mark).
   */
  unchangedSince(mark: TreeMark | undefined, root: string, path: string): Stats | null {
    const noted = mark ? this.marks.get(mark)?.get(path) : undefined;
    const stats = noted ? lookAt(root, path) : undefined;
    if (!noted || !stats?.isFile()) return null;
    const now = identityOf(stats);
    const same = now.ino === noted.ino && now.size === noted.size && now.mode === noted.mode
      && now.mtimeMs === noted.mtimeMs && now.ctimeMs === noted.ctimeMs;
    return same ? stats : null;
  }

  /** Whether `mark` was taken here: without one, a read need not ask about each file. */
  has(mark: TreeMark | undefined): mark is TreeMark {
    return mark !== undefined && this.marks.has(mark);
  }
}

/** The same look when noting and when checking: never through a link. */
function lookAt(root: string, path: string): Stats | undefined {
  return lstatSync(join(root, path), { throwIfNoEntry: false });
}

export function identityOf(stats: Stats): FileIdentity {
  return { ino: stats.ino, size: stats.size, mode: stats.mode, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}
