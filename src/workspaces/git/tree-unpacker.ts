import { createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TreeEntry } from '../../sandbox/tree-entry.js';
import { readWhole } from '../../sandbox/read-whole.js';
import { EmptyArchiveError, tarEntries } from '../../sandbox/tar-entries.js';
import { parentOf } from '../../sandbox/tar-entry-path.js';

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
  /**
   * Asked instead of `unchanged`, without reading the file, for a file the sandbox vouches is
   * as it was when its tree was marked (`TreeEntry.asMarked`): true leaves it unwritten (the
   * caller marked the tree right after putting in what it compares with). False reads it and asks
   * `unchanged`.
   */
  unchangedMarked?: (path: string, mode: string) => boolean;
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
export function unpackTree(archive: Readable, root: string, options: UnpackOptions = {}): Promise<UnpackResult> {
  return unpackEntries(tarEntries(archive), root, options);
}

/** `unpackTree` for a tree handed over as entries (`Sandbox.readTree`), under the same rules. */
export async function unpackEntries(entries: AsyncIterable<TreeEntry>, root: string, options: UnpackOptions = {}): Promise<UnpackResult> {
  const state: UnpackState = { root, directories: new Set(['']), planned: new Set(), written: new Set(), kept: new Set(), unchanged: options.unchanged ?? null, unchangedMarked: options.unchangedMarked ?? null, writes: new Map(), failure: null };
  const result: UnpackResult = { skippedGitEntries: 0, kept: state.kept };
  try {
    for await (const entry of entries) {
      const path = relativePath(entry.name);
      if (path !== null && isGitPath(path)) result.skippedGitEntries++;
      if (path === null || isGitPath(path)) continue;
      await unpackEntry(state, entry, path);
    }
    await settle(state);
  } catch (error) {
    await settle(state).catch(() => undefined);
    // A lost tree must never read as an empty one: staged, it would propose deleting every file.
    throw error instanceof EmptyArchiveError ? new UnsafeArchiveError(error.message) : error;
  }
  return result;
}

interface UnpackState {
  root: string;
  /** Directories under `root` known to be real directories (not links), created or checked here. */
  directories: Set<string>;
  /** Directories checked but not yet made: nothing has been written below them (`ensureDirectory`). */
  planned: Set<string>;
  /** Paths this unpack created (anything else under the empty root does not exist). */
  written: Set<string>;
  /** Files of the tree left unwritten (`UnpackOptions.unchanged`): they exist for the archive, not on disk. */
  kept: Set<string>;
  unchanged: UnpackOptions['unchanged'] | null;
  unchangedMarked: UnpackOptions['unchangedMarked'] | null;
  /** Small files being written, by path. */
  writes: Map<string, Promise<void>>;
  failure: unknown;
}

async function unpackEntry(state: UnpackState, entry: TreeEntry, path: string): Promise<void> {
  const { type } = entry;
  // Anything but a file at a new path waits for the writes in flight: it may replace or read one.
  if (type !== 'file' || state.written.has(path)) await settle(state);
  if (state.unchanged && posix.basename(path) === '.gitattributes') throw new WholeTreeNeededError(`${path} decides how files are read`);
  // Files may be kept rather than written: their directory is made only for a write.
  await ensureDirectory(state, parentOf(path), type !== 'file' && type !== 'directory');
  const target = join(state.root, path);
  switch (type) {
    case 'directory':
      await ensureDirectory(state, path, false);
      return;
    case 'file': {
      await clear(state, path);
      state.written.add(path);
      const mode = fileMode(entry.mode);
      if (entry.asMarked && state.unchanged && state.unchangedMarked?.(path, gitMode(mode))) {
        keep(state, path);
        return;
      }
      const content = entry.content ?? (entry.size <= SMALL_FILE_BYTES ? await readExactly(opened(entry), entry.size) : null);
      if (!content) {
        await ensureDirectory(state, parentOf(path), true);
        await pipeline(opened(entry), exactly(entry.size, path), createWriteStream(target, { flags: 'wx', mode }));
        return;
      }
      if (state.unchanged?.(path, gitMode(mode), content)) {
        keep(state, path);
        return;
      }
      await ensureDirectory(state, parentOf(path), true);
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
      await symlink(entry.linkname ?? '', target);
      return;
    case 'link': {
      const source = relativePath(entry.linkname ?? '');
      if (source === null || isGitPath(source)) throw new UnsafeArchiveError(`hard link ${path} points outside the tree`);
      if (state.kept.has(source)) throw new WholeTreeNeededError(`hard link ${path} points at a file left unwritten`);
      // Only a regular file unpacked before: copying through a link would read the server's files.
      const stats = state.directories.has(parentOf(source)) ? await lstat(join(state.root, source)).catch(() => null) : null;
      if (!stats?.isFile()) throw new UnsafeArchiveError(`hard link ${path} does not point at a file unpacked before`);
      await clear(state, path);
      state.written.add(path);
      await copyFile(join(state.root, source), target);
      return;
    }
  }
}

function opened(entry: TreeEntry): AsyncIterable<Buffer> {
  if (!entry.open) throw new UnsafeArchiveError(`file ${entry.name} came without its content`);
  return entry.open();
}

/** Exactly `size` bytes of a stream, or an error. */
async function readExactly(stream: AsyncIterable<Buffer>, size: number): Promise<Buffer> {
  const content = await readWhole(stream);
  if (content.length !== size) throw sizeMismatch(content.length, size);
  return content;
}

/** Passes a file's bytes through, failing when they are not exactly `size` (a file that changed while read). */
function exactly(size: number, path: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > size ? sizeMismatch(seen, size, path) : null, chunk);
    },
    flush(done) {
      done(seen === size ? null : sizeMismatch(seen, size, path));
    },
  });
}

function sizeMismatch(actual: number, expected: number, path?: string): Error {
  return new Error(`${path ?? 'a file'} changed while it was read: ${actual} bytes where ${expected} were announced`);
}

async function settle(state: UnpackState): Promise<void> {
  await Promise.all(state.writes.values());
  if (state.failure) throw state.failure;
}

function isGitPath(path: string): boolean {
  return path.split('/').some((part) => part.toLowerCase() === '.git');
}

/** The entry's path relative to the root, or null for the root itself; refuses escapes. */
function relativePath(name: string): string | null {
  if (name.startsWith('/')) throw new UnsafeArchiveError(`absolute path in archive: ${name}`);
  const parts = name.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new UnsafeArchiveError(`path leaving the tree in archive: ${name}`);
  return parts.length ? parts.join('/') : null;
}

/**
 * Checks that `dir` (relative) can be a real directory, refusing to go through a symbolic link or
 * a file. With `create` it is made; otherwise it is only planned, and made when something is
 * written below it: a tree of kept files needs none of its directories on disk (git keeps no empty
 * directory), and creating 500 of them cost a quarter of a collect on the bench machine.
 */
async function ensureDirectory(state: UnpackState, dir: string, create: boolean): Promise<void> {
  if (state.directories.has(dir) || (!create && state.planned.has(dir))) return;
  // A kept file is a file, as if written: nothing may go below it.
  if (state.kept.has(dir)) throw new UnsafeArchiveError(`entry below a file in archive: ${dir}`);
  await ensureDirectory(state, parentOf(dir), create);
  const full = join(state.root, dir);
  const stats = state.written.has(dir) ? await lstat(full).catch(() => null) : null;
  if (stats?.isSymbolicLink()) throw new UnsafeArchiveError(`entry below a symbolic link in archive: ${dir}`);
  if (stats && !stats.isDirectory()) throw new UnsafeArchiveError(`entry below a file in archive: ${dir}`);
  if (!stats && !create) {
    state.planned.add(dir);
    return;
  }
  if (!stats) await mkdir(full);
  state.planned.delete(dir);
  state.written.add(dir);
  state.directories.add(dir);
}

/** Removes what an earlier entry put at `path` (a later entry replaces it), forgetting directories under it. */
async function clear(state: UnpackState, path: string): Promise<void> {
  state.kept.delete(path);
  if (!state.written.has(path) && !state.planned.has(path)) return;
  const below = (other: string) => other === path || other.startsWith(`${path}/`);
  for (const set of [state.directories, state.planned, state.written, state.kept]) for (const other of set) if (below(other)) set.delete(other);
  await rm(join(state.root, path), { recursive: true, force: true });
}

/** A file left unwritten: it exists for the tree, not on disk. */
function keep(state: UnpackState, path: string): void {
  state.written.delete(path);
  state.kept.add(path);
}

function gitMode(mode: number): '100755' | '100644' {
  return mode & 0o111 ? '100755' : '100644';
}

/** Git keeps only the executable bit; the owner can always read and write the scratch copy. */
function fileMode(mode: number | undefined): number {
  return (mode ?? 0o644) & 0o111 ? 0o755 : 0o644;
}
