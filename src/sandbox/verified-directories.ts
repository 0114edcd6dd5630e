import { lstatSync, mkdirSync, unlinkSync } from 'node:fs';
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

  /** `writeSynchronously`: whether a missing directory is made with synchronous calls now (the unpack's choice for its files). */
  constructor(
    private readonly root: string,
    private readonly writeSynchronously: () => boolean = () => false,
  ) {}

  /**
   * Makes the directories above `path` that are missing; a link or a file among them is refused.
   * When they are all known already it answers undefined, not a promise to await.
   */
  prepareParentOf(path: string): Promise<void> | undefined {
    const parent = parentOf(path);
    return this.known.has(parent) ? undefined : this.ensure(parent, false);
  }

  /**
   * Makes `path` a directory for an entry that names it: a file or a link already there is
   * replaced (the link is removed, never followed); an existing directory is kept as it is.
   */
  placeDirectory(path: string): Promise<void> | undefined {
    return this.known.has(path) ? undefined : this.ensure(path, true);
  }

  private async ensure(path: string, replaceOther: boolean): Promise<void> {
    if (this.known.has(path)) return;
    await this.ensure(parentOf(path), false);
    const target = join(this.root, path);
    if (this.writeSynchronously()) makeDirectorySync(path, target, replaceOther);
    else await makeDirectory(path, target, replaceOther);
    this.known.add(path);
  }
}

async function makeDirectory(path: string, target: string, replaceOther: boolean): Promise<void> {
  try {
    await mkdir(target, DIRECTORY_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const existing = await lstat(target);
    if (existing.isDirectory()) return;
    if (!replaceOther) throw notADirectory(path, existing.isSymbolicLink());
    await unlink(target);
    await mkdir(target, DIRECTORY_MODE);
  }
}

function makeDirectorySync(path: string, target: string, replaceOther: boolean): void {
  try {
    mkdirSync(target, DIRECTORY_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const existing = lstatSync(target);
    if (existing.isDirectory()) return;
    if (!replaceOther) throw notADirectory(path, existing.isSymbolicLink());
    unlinkSync(target);
    mkdirSync(target, DIRECTORY_MODE);
  }
}

function notADirectory(path: string, isLink: boolean): Error {
  return new Error(`${path} is ${isLink ? 'a symbolic link, and nothing is written through one' : 'not a directory'}`);
}
