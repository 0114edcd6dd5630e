import { createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { byteCounter } from '../../sandbox/unpack-into.js';

/** Files up to this size are read whole and written in parallel; larger ones are streamed one at a time. */
const SMALL_FILE_BYTES = 1024 * 1024;
/** Small files being written at once: a tree of thousands of small files is bound by fs round trips, not bytes. */
const PARALLEL_WRITES = 16;

/** A tar entry that would write outside the directory or cannot be represented. */
export class UnsafeArchiveError extends Error {
  override readonly name = 'UnsafeArchiveError';
}

export interface UnpackResult {
  /** Entries left out because a path component is `.git` (any case). */
  skippedGitEntries: number;
  /** Files of the tree not written because `unchanged` said the base already holds them as they are. */
  kept: Set<string>;
}

export interface UnpackOptions {
  /**
   * Asked for each small regular file with its mode (`100644` or `100755`) and bytes: true leaves
   * it unwritten (listed in `kept`), because the caller already holds exactly that file. A
   * thousand-file tree with a one-line change then costs hashing, not a thousand writes.
   */
  unchanged?: (path: string, mode: string, content: Buffer) => boolean;
}

/**
 * Thrown when a tree unpacked with `unchanged` turns out to need every file on disk (a hard link
 * to a kept file, or a `.gitattributes`, which changes how each file is read); unpack it again
 * without `unchanged`.
 */
export class WholeTreeNeededError extends Error {
  override readonly name = 'WholeTreeNeededError';
}

/**
 * Unpacks a sandbox's tree into an empty directory on the server. What a sandbox sends is
 * untrusted:
 * - every path component named `.git` (any case, at any depth) is skipped, so a sandbox can plant
 *   neither hooks nor config nor an embedded repository in the server's git directory;
 * - absolute paths, `..` components and entries below a symbolic link are refused, and nothing is
 *   ever written through a link (a path written before is removed, files are created with O_EXCL);
 * - files, directories, symbolic links and hard links (copied) come through with the executable
 *   bit; devices and fifos are left out.
 * Written here rather than shared with the sandbox backends because of the `.git` rule, which
 * is the workspace's concern.
 */
export async function unpackTree(archive: Readable, root: string, options: UnpackOptions = {}): Promise<UnpackResult> {
  const extract = tar.extract();
  const state: UnpackState = { root, directories: new Set(['']), written: new Set(), kept: new Set(), unchanged: options.unchanged ?? null, writes: new Map(), failure: null };
  const result: UnpackResult = { skippedGitEntries: 0, kept: state.kept };
  const counter = byteCounter();
  const feeding = pipeline(archive, counter.stream, extract);
  try {
    for await (const entry of extract) {
      const path = relativePath(entry.header.name);
      if (path !== null && isGitPath(path)) result.skippedGitEntries++;
      if (path === null || isGitPath(path)) {
        entry.resume();
        continue;
      }
      await unpackEntry(state, entry, path);
    }
    await feeding;
    // A lost tree must never read as an empty one: staged, it would propose deleting every file.
    if (counter.bytes() === 0) throw new UnsafeArchiveError("the sandbox's archive is empty (not even an end-of-archive marker): its tree did not arrive");
    await settle(state);
  } catch (error) {
    archive.destroy();
    await feeding.catch(() => undefined);
    await settle(state).catch(() => undefined);
    throw error;
  }
  return result;
}

interface UnpackState {
  root: string;
  /** Directories under `root` known to be real directories (not links), created or checked here. */
  directories: Set<string>;
  /** Paths this unpack created (anything else under the empty root does not exist). */
  written: Set<string>;
  /** Files of the tree left unwritten (`UnpackOptions.unchanged`): they exist for the archive, not on disk. */
  kept: Set<string>;
  unchanged: UnpackOptions['unchanged'] | null;
  /** Small files being written, by path. */
  writes: Map<string, Promise<void>>;
  failure: unknown;
}

/** One entry of an archive being read (tar-stream does not export its name). */
type Entry = tar.Extract extends AsyncIterable<infer E> ? E : never;

async function unpackEntry(state: UnpackState, entry: Entry, path: string): Promise<void> {
  const { header } = entry;
  const type = header.type ?? 'file';
  // Anything but a file at a new path waits for the writes in flight: it may replace or read one.
  if ((type !== 'file' && type !== 'contiguous-file') || state.written.has(path)) await settle(state);
  if (state.unchanged && posix.basename(path) === '.gitattributes') throw new WholeTreeNeededError(`${path} decides how files are read`);
  await ensureDirectory(state, parentOf(path));
  const target = join(state.root, path);
  switch (type) {
    case 'directory':
      await ensureDirectory(state, path);
      entry.resume();
      return;
    case 'file':
    case 'contiguous-file': {
      await clear(state, path);
      state.written.add(path);
      const mode = fileMode(header.mode);
      if (header.size > SMALL_FILE_BYTES) {
        await pipeline(entry, createWriteStream(target, { flags: 'wx', mode }));
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const content = Buffer.concat(chunks);
      if (state.unchanged?.(path, mode & 0o111 ? '100755' : '100644', content)) {
        state.written.delete(path);
        state.kept.add(path);
        return;
      }
      const write = writeFile(target, content, { flag: 'wx', mode })
        .catch((error: unknown) => void (state.failure ??= error))
        .finally(() => state.writes.delete(path));
      state.writes.set(path, write);
      if (state.writes.size >= PARALLEL_WRITES) await Promise.race(state.writes.values());
      if (state.failure) throw state.failure;
      return;
    }
    case 'symlink':
      await clear(state, path);
      state.written.add(path);
      await symlink(header.linkname ?? '', target);
      entry.resume();
      return;
    case 'link': {
      const source = relativePath(header.linkname ?? '');
      if (source === null || isGitPath(source)) throw new UnsafeArchiveError(`hard link ${path} points outside the tree`);
      if (state.kept.has(source)) throw new WholeTreeNeededError(`hard link ${path} points at a file left unwritten`);
      // Only a regular file unpacked before: copying through a link would read the server's files.
      const stats = state.directories.has(parentOf(source)) ? await lstat(join(state.root, source)).catch(() => null) : null;
      if (!stats?.isFile()) throw new UnsafeArchiveError(`hard link ${path} does not point at a file unpacked before`);
      await clear(state, path);
      state.written.add(path);
      await copyFile(join(state.root, source), target);
      entry.resume();
      return;
    }
    default:
      entry.resume();
  }
}

async function settle(state: UnpackState): Promise<void> {
  await Promise.all(state.writes.values());
  if (state.failure) throw state.failure;
}

function isGitPath(path: string): boolean {
  return path.split('/').some((part) => part.toLowerCase() === '.git');
}

function parentOf(path: string): string {
  const parent = posix.dirname(path);
  return parent === '.' ? '' : parent;
}

/** The entry's path relative to the root, or null for the root itself; refuses escapes. */
function relativePath(name: string): string | null {
  if (name.startsWith('/')) throw new UnsafeArchiveError(`absolute path in archive: ${name}`);
  const parts = name.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new UnsafeArchiveError(`path leaving the tree in archive: ${name}`);
  return parts.length ? parts.join('/') : null;
}

/** Makes `dir` (relative) a real directory, refusing to go through a symbolic link or a file. */
async function ensureDirectory(state: UnpackState, dir: string): Promise<void> {
  if (state.directories.has(dir)) return;
  // A kept file is a file, as if written: nothing may go below it.
  if (state.kept.has(dir)) throw new UnsafeArchiveError(`entry below a file in archive: ${dir}`);
  await ensureDirectory(state, parentOf(dir));
  const full = join(state.root, dir);
  const stats = state.written.has(dir) ? await lstat(full).catch(() => null) : null;
  if (stats?.isSymbolicLink()) throw new UnsafeArchiveError(`entry below a symbolic link in archive: ${dir}`);
  if (stats && !stats.isDirectory()) throw new UnsafeArchiveError(`entry below a file in archive: ${dir}`);
  if (!stats) await mkdir(full);
  state.written.add(dir);
  state.directories.add(dir);
}

/** Removes what an earlier entry put at `path` (a later entry replaces it), forgetting directories under it. */
async function clear(state: UnpackState, path: string): Promise<void> {
  state.kept.delete(path);
  if (!state.written.has(path)) return;
  for (const dir of state.directories) if (dir === path || dir.startsWith(`${path}/`)) state.directories.delete(dir);
  for (const written of state.written) if (written === path || written.startsWith(`${path}/`)) state.written.delete(written);
  for (const kept of state.kept) if (kept.startsWith(`${path}/`)) state.kept.delete(kept);
  await rm(join(state.root, path), { recursive: true, force: true });
}

/** Git keeps only the executable bit; the owner can always read and write the scratch copy. */
function fileMode(mode: number | undefined): number {
  return (mode ?? 0o644) & 0o111 ? 0o755 : 0o644;
}
