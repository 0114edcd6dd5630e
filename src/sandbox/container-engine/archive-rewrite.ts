import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ExtractEvents, type Header, type Pack, extract, pack } from 'tar-stream';
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
  await copyFileEntry(out, entry, { ...common, name: path, type: 'file', size, mode: executable ? 0o755 : 0o644 });
}

/** Files up to this size are copied as one buffer; larger ones are streamed. */
const COPY_WHOLE_UP_TO = 1024 * 1024;

/**
 * Copies a file entry into `out`: a small one read whole and added as one buffer (a stream per
 * entry made rewriting 10,000 small files take 1.0–1.3 s, whole buffers 0.65–0.9 s), a larger
 * one streamed. Either way it resolves once `out`'s reader has taken it (back-pressure holds).
 */
async function copyFileEntry(out: Pack, entry: Entry, header: Partial<Header> & Pick<Header, 'name'>): Promise<void> {
  if ((header.size ?? 0) > COPY_WHOLE_UP_TO) {
    await pipeline(entry, out.entry(header));
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  await new Promise<void>((resolve, reject) => out.entry(header, Buffer.concat(chunks), (error) => (error ? reject(error) : resolve())));
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
      if (header.type === 'file' || header.type === 'contiguous-file') await copyFileEntry(out, entry, { ...header, name, linkname });
      else {
        out.entry({ ...header, name, linkname });
        entry.resume();
      }
    }
    await feeding;
  })().then(() => out.finalize(), (error: Error) => out.destroy(error));
  return Readable.from(out, { objectMode: false });
}
