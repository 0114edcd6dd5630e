import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Header, extract, pack } from 'tar-stream';
import { addPackEntry } from '../pack-entry.js';
import { entryPath } from '../tar-entry-path.js';
import { byteCounter } from '../unpack-into.js';

type Entry = Readable & { header: Header };

/**
 * Re-packs a tree archive on its way into a sandbox with the in-process backend's rules: files
 * (mode 0755 when any executable bit is set, else 0644), directories and symbolic links, paths
 * made relative; an entry that lands outside (absolute, `..`), below a link of the same archive,
 * or of another type (hard link, device, FIFO) fails the stream with an Error naming it, as
 * does a stream with no bytes at all. `done` settles when the source is consumed.
 */
export function checkedTreeArchive(source: Readable): { archive: Readable; done: Promise<void> } {
  const out = pack();
  const counter = byteCounter();
  const entries = extract();
  const done = (async () => {
    const feeding = pipeline(source, counter.stream, entries);
    feeding.catch(() => undefined);
    const links: string[] = [];
    try {
      for await (const raw of entries) {
        const entry = raw as unknown as Entry;
        const { name, type, mode, linkname } = entry.header;
        const refusal = (why: string) => new Error(`tar entry "${name}" is refused: ${why}`);
        let path: string;
        try {
          path = entryPath(name);
        } catch (error) {
          throw new Error((error as Error).message);
        }
        if (links.some((link) => path.startsWith(`${link}/`))) throw refusal('its path goes through a symbolic link');
        if (path === '') {
          if (type !== 'directory') throw refusal('it names the directory itself');
          entry.resume();
          continue;
        }
        if (type === 'file' || type === 'contiguous-file') {
          await addPackEntry(out, { name: path, type: 'file', size: entry.header.size, mode: mode !== undefined && (mode & 0o111) !== 0 ? 0o755 : 0o644, mtime: entry.header.mtime }, entry);
        } else if (type === 'directory') {
          entry.resume();
          await addPackEntry(out, { name: path, type: 'directory', mode: 0o755, mtime: entry.header.mtime });
        } else if (type === 'symlink') {
          if (!linkname) throw refusal('the link has no target');
          entry.resume();
          links.push(path);
          await addPackEntry(out, { name: path, type: 'symlink', linkname, mode: 0o777, mtime: entry.header.mtime });
        } else throw refusal(`${type ?? 'unknown'} entries are not supported (only files, directories and symbolic links)`);
      }
      await feeding;
      if (counter.bytes() === 0) throw new Error('the archive is empty (not even an end-of-archive marker): the tree did not arrive');
      out.finalize();
    } catch (error) {
      source.destroy();
      out.destroy(error as Error);
      throw error;
    }
  })();
  done.catch(() => undefined);
  const archive = Readable.from(out, { objectMode: false });
  archive.on('error', () => undefined); // `done` carries the refusal; the exec's stdin reader has no error handler
  return { archive, done };
}

/**
 * The tree as a sandbox's `tar -c -C <workdir> .` wrote it, re-packed with paths relative to the
 * working directory (`src/main.ts`, not `./src/main.ts`) and without the entry for `.` itself.
 * `finished` decides at the end whether the stream ends normally or with its Error.
 */
export function relativeTreeArchive(raw: Readable, finished: Promise<void>): Readable {
  const out = pack();
  const entries = extract();
  void (async () => {
    const feeding = pipeline(raw, entries);
    feeding.catch(() => undefined);
    try {
      for await (const rawEntry of entries) {
        const entry = rawEntry as unknown as Entry;
        const path = entryPath(entry.header.name);
        if (path === '') {
          entry.resume();
          continue;
        }
        const header = { ...entry.header, name: entry.header.type === 'directory' ? `${path}/` : path };
        if (entry.header.type === 'file' || entry.header.type === 'contiguous-file') await addPackEntry(out, header, entry);
        else {
          entry.resume();
          await addPackEntry(out, header);
        }
      }
      await feeding;
      await finished;
      out.finalize();
    } catch (error) {
      raw.destroy();
      out.destroy(error as Error);
    }
  })();
  return Readable.from(out, { objectMode: false });
}
