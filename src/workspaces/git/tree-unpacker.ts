import { createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, rm, symlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

/** A tar entry that would write outside the directory or cannot be represented. */
export class UnsafeArchiveError extends Error {
  override readonly name = 'UnsafeArchiveError';
}

export interface UnpackResult {
  /** Entries left out because a path component is `.git` (any case). */
  skippedGitEntries: number;
}

/**
 * Unpacks a sandbox's tree into a scratch working tree on the server. What a sandbox sends is
 * untrusted:
 * - every path component named `.git` (any case, at any depth) is skipped, so a sandbox can plant
 *   neither hooks nor config nor an embedded repository in the server's git directory;
 * - absolute paths, `..` components and entries below a symbolic link are refused, and nothing is
 *   ever written through a link (existing paths are removed, files are created with O_EXCL);
 * - files, directories, symbolic links and hard links (copied) come through with the executable
 *   bit; devices and fifos are left out.
 * Written here rather than shared with the sandbox backends because of the `.git` rule, which
 * is the workspace's concern.
 */
export async function unpackTree(archive: Readable, root: string): Promise<UnpackResult> {
  const extract = tar.extract();
  const result: UnpackResult = { skippedGitEntries: 0 };
  /** Directories under `root` known to be real directories (not links) created or checked by us. */
  const directories = new Set<string>(['']);
  const feeding = pipeline(archive, extract);
  try {
    for await (const entry of extract) {
      const header = entry.header;
      const path = relativePath(header.name);
      if (path === null) {
        entry.resume();
        continue;
      }
      if (path.split('/').some((part) => part.toLowerCase() === '.git')) {
        result.skippedGitEntries++;
        entry.resume();
        continue;
      }
      await ensureDirectory(root, posix.dirname(path) === '.' ? '' : posix.dirname(path), directories);
      const target = join(root, path);
      switch (header.type) {
        case 'directory':
          await ensureDirectory(root, path, directories);
          entry.resume();
          break;
        case 'file':
        case 'contiguous-file':
        case undefined:
        case null:
          await clear(target, path, directories);
          await pipeline(entry, createWriteStream(target, { flags: 'wx', mode: fileMode(header.mode) }));
          break;
        case 'symlink':
          await clear(target, path, directories);
          await symlink(header.linkname ?? '', target);
          entry.resume();
          break;
        case 'link': {
          const source = relativePath(header.linkname ?? '');
          if (source === null || source.split('/').some((part) => part.toLowerCase() === '.git')) throw new UnsafeArchiveError(`hard link ${path} points outside the tree`);
          // Only a regular file unpacked before: copying through a link would read the server's files.
          const sourceDir = posix.dirname(source) === '.' ? '' : posix.dirname(source);
          const stats = directories.has(sourceDir) ? await lstat(join(root, source)).catch(() => null) : null;
          if (!stats?.isFile()) throw new UnsafeArchiveError(`hard link ${path} does not point at a file unpacked before`);
          await clear(target, path, directories);
          await copyFile(join(root, source), target);
          entry.resume();
          break;
        }
        default:
          entry.resume();
      }
    }
    await feeding;
  } catch (error) {
    archive.destroy();
    await feeding.catch(() => undefined);
    throw error;
  }
  return result;
}

/** The entry's path relative to the root, or null for the root itself; refuses escapes. */
function relativePath(name: string): string | null {
  if (name.startsWith('/')) throw new UnsafeArchiveError(`absolute path in archive: ${name}`);
  const parts = name.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new UnsafeArchiveError(`path leaving the tree in archive: ${name}`);
  return parts.length ? parts.join('/') : null;
}

/** Makes `dir` (relative) a real directory, refusing to go through a symbolic link or a file. */
async function ensureDirectory(root: string, dir: string, known: Set<string>): Promise<void> {
  if (known.has(dir)) return;
  const parent = posix.dirname(dir) === '.' ? '' : posix.dirname(dir);
  await ensureDirectory(root, parent, known);
  const stats = await lstat(join(root, dir)).catch(() => null);
  if (stats?.isSymbolicLink()) throw new UnsafeArchiveError(`entry below a symbolic link in archive: ${dir}`);
  if (stats && !stats.isDirectory()) throw new UnsafeArchiveError(`entry below a file in archive: ${dir}`);
  if (!stats) await mkdir(join(root, dir));
  known.add(dir);
}

/** Removes whatever is at `path` (a later entry replaces an earlier one), forgetting directories under it. */
async function clear(target: string, path: string, known: Set<string>): Promise<void> {
  if (known.has(path)) {
    for (const dir of known) if (dir === path || dir.startsWith(`${path}/`)) known.delete(dir);
  }
  await rm(target, { recursive: true, force: true });
}

/** Git keeps only the executable bit; the owner can always read and write the scratch copy. */
function fileMode(mode: number | undefined): number {
  return (mode ?? 0o644) & 0o111 ? 0o755 : 0o644;
}
