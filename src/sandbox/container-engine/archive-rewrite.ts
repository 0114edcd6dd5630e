import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ExtractEvents, type Pack, extract, pack } from 'tar-stream';
import { addPackEntry } from '../pack-entry.js';
import { byteCounter } from '../unpack-into.js';
import { rerooted } from '../tar-entries.js';
import { entryPath } from '../tar-entry-path.js';

type Entry = ExtractEvents['entry'][1];

/**
 * The archive a sandbox is handed, rewritten for the engine's archive endpoint: each entry owned
 * by the sandbox user (the engine keeps a tar's owners, and commands run as that user), modes
 * normalised as the in-process backend does (0755 with an executable bit, else 0644; directories
 * 0755), and refused, the stream failing with an Error naming it, when it would land outside the
 * working directory: an absolute path, `..` climbing out, or a path below a link or file the
 * archive itself made; hard links, devices and FIFOs are refused too. What the engine extracts
 * stays inside the container either way: the container, not the path check, is the boundary.
 */
export function ownedArchive(source: Readable, owner: { uid: number; gid: number }): Readable {
  const out = pack();
  const entries = extract();
  const counter = byteCounter();
  const feeding = pipeline(source, counter.stream, entries);
  feeding.catch(() => undefined); // awaited below
  void (async () => {
    const seen = { notDirectories: new Map<string, string>(), directories: new Set<string>() };
    for await (const entry of entries as AsyncIterable<Entry>) await rewrite(out, entry, owner, seen);
    await feeding;
    if (counter.bytes() === 0) throw new Error('the archive is empty (not even an end-of-archive marker): the tree did not arrive');
  })().then(() => out.finalize(), (error: Error) => {
    source.destroy();
    out.destroy(error);
  });
  return Readable.from(out, { objectMode: false });
}

/** Paths the archive made so far: links and files (nothing may go below them), and directories. */
interface Seen {
  notDirectories: Map<string, string>;
  directories: Set<string>;
}

async function rewrite(out: Pack, entry: Entry, owner: { uid: number; gid: number }, seen: Seen): Promise<void> {
  const { name, type, mode, mtime, linkname, size } = entry.header;
  const path = entryPath(name);
  const common = { uid: owner.uid, gid: owner.gid, mtime };
  for (let at = path.indexOf('/'); at > 0; at = path.indexOf('/', at + 1)) {
    const parent = path.slice(0, at);
    const kind = seen.notDirectories.get(parent);
    if (kind) throw new Error(`tar entry "${name}" is refused: ${parent} is a ${kind}`);
    // A parent the archive leaves implied would be made by the engine as root: name it, owned by the user.
    if (!seen.directories.has(parent)) out.entry({ ...common, name: `${parent}/`, type: 'directory', mode: 0o755 });
    seen.directories.add(parent);
  }
  const { notDirectories } = seen;
  if (type === 'directory') {
    notDirectories.delete(path);
    seen.directories.add(path);
    if (path !== '') out.entry({ ...common, name: `${path}/`, type, mode: 0o755 });
    entry.resume();
    return;
  }
  if (path === '') throw new Error(`tar entry "${name}" is refused: it names the working directory itself`);
  seen.directories.delete(path);
  if (type === 'symlink') {
    notDirectories.set(path, 'symbolic link');
    out.entry({ ...common, name: path, type, mode: 0o777, linkname: linkname ?? '' });
    entry.resume();
    return;
  }
  if (type !== 'file' && type !== 'contiguous-file') {
    throw new Error(`tar entry "${name}" is refused: a ${type ?? 'unknown entry'} (only files, directories and symbolic links)`);
  }
  notDirectories.set(path, 'file');
  const executable = ((mode ?? 0o644) & 0o111) !== 0;
  await addPackEntry(out, { ...common, name: path, type: 'file', size, mode: executable ? 0o755 : 0o644 }, entry as AsyncIterable<Buffer>);
}

/**
 * The engine's archive of a directory names every entry below the directory's own name
 * (`work/src/a.ts`, `work/` first): the same tree with paths relative to it, as the Sandbox
 * interface promises. Hard links' targets are re-rooted too. (Collect reads the engine's archive
 * with `tarEntries(…, { below })` instead: no second archive to encode.)
 */
export function rerootedArchive(source: NodeJS.ReadableStream, directory: string): Readable {
  const rename = rerooted(directory);
  const out = pack();
  const entries = extract();
  const feeding = pipeline(source as Readable, entries);
  feeding.catch(() => undefined);
  void (async () => {
    for await (const entry of entries as AsyncIterable<Entry>) {
      const header = entry.header;
      const name = rename(header.name);
      if (name === null) {
        entry.resume();
        continue;
      }
      const linkname = header.type === 'link' && header.linkname ? rename(header.linkname) ?? header.linkname : header.linkname;
      if (header.type === 'file' || header.type === 'contiguous-file') await addPackEntry(out, { ...header, name, linkname }, entry as AsyncIterable<Buffer>);
      else {
        out.entry({ ...header, name, linkname });
        entry.resume();
      }
    }
    await feeding;
  })().then(() => out.finalize(), (error: Error) => out.destroy(error));
  return Readable.from(out, { objectMode: false });
}
