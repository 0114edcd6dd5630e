import { lstat, mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { parentOf } from './tar-entry-path.js';

const DIRECTORY_MODE = 0o755;

/**
 * The directories under `root` that an unpack has made or checked to be real directories (not
 * symbolic links), so each is looked at once however many entries it holds, and nothing is ever
 * written through a link. Paths are relative to `root`, as `entryPath` gives them.
 *
 * It trusts what it has checked: a process swapping a checked directory for a link while the
 * unpack runs is not guarded against (Node has no `openat`/`O_BENEATH`).
 */
export class VerifiedDirectories {
  private readonly known = new Set<string>(['']);

  constructor(private readonly root: string) {}

  /** Makes the directories above `path` that are missing; a link or a file among them is refused. */
  async prepareParentOf(path: string): Promise<void> {
    await this.ensure(parentOf(path), false);
  }

  /**
   * Makes `path` a directory for an entry that names it: a file or a link already there is
   * replaced (the link is removed, never followed); an existing directory is kept as it is.
   */
  async placeDirectory(path: string): Promise<void> {
    await this.ensure(path, true);
  }

  private async ensure(path: string, replaceOther: boolean): Promise<void> {
    if (this.known.has(path)) return;
    await this.ensure(parentOf(path), false);
    const target = join(this.root, path);
    try {
      await mkdir(target, DIRECTORY_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const existing = await lstat(target);
      if (!existing.isDirectory()) {
        if (!replaceOther) {
          const what = existing.isSymbolicLink() ? 'a symbolic link, and nothing is written through one' : 'not a directory';
          throw new Error(`${path} is ${what}`);
        }
        await unlink(target);
        await mkdir(target, DIRECTORY_MODE);
      }
    }
    this.known.add(path);
  }
}
