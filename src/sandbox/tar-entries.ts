import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { readWhole } from './read-whole.js';
import type { TreeEntry } from './tree-entry.js';
import { byteCounter } from './unpack-into.js';

/** Files up to this size are read whole; larger ones are streamed (`TreeEntry.open`). */
const READ_WHOLE_UP_TO = 1024 * 1024;

/** The tar entry types a tree keeps; devices, fifos and the rest are left out. */
const ENTRY_TYPES: Partial<Record<string, TreeEntry['type']>> = { file: 'file', 'contiguous-file': 'file', directory: 'directory', symlink: 'symlink', link: 'link' };

/** The stream brought no bytes at all, not even an end-of-archive marker: the tree did not arrive. */
export class EmptyArchiveError extends Error {
  override readonly name = 'EmptyArchiveError';
}

export interface TarEntriesOptions {
  /**
   * The directory the archive names its entries below (`work/` for an engine's archive of
   * `/work`): dropped from names and hard links' targets; the directory's own entry is left out.
   */
  below?: string;
}

/**
 * A tar stream's entries as `TreeEntry`s, in the archive's order, names as the archive gives them
 * (untrusted: the reader checks them). Ends with EmptyArchiveError when the stream was empty: a
 * lost tree must never read as an empty one.
 */
export async function* tarEntries(archive: Readable | NodeJS.ReadableStream, options: TarEntriesOptions = {}): AsyncGenerator<TreeEntry> {
  const extract = tar.extract();
  const counter = byteCounter();
  const feeding = pipeline(archive, counter.stream, extract);
  const rename = options.below === undefined ? (name: string) => name : rerooted(options.below);
  let complete = false;
  try {
    for await (const entry of extract) {
      const { header } = entry;
      const type = ENTRY_TYPES[header.type ?? 'file'];
      const name = rename(header.name);
      if (type && name !== null) {
        const size = type === 'file' ? header.size ?? 0 : 0;
        const target = header.linkname ?? undefined;
        // A hard link names a path of the archive, so it is re-rooted too; a symbolic link's text is the sandbox's.
        const linkname = type === 'link' && target !== undefined ? rename(target) ?? target : target;
        // Permission bits only: an engine's archive carries the file type in the mode too (0o100755).
        const described: TreeEntry = { name, type, mode: (header.mode ?? 0o644) & 0o7777, size, linkname, mtimeMs: header.mtime?.getTime() };
        if (type !== 'file') yield described;
        else if (size <= READ_WHOLE_UP_TO) yield { ...described, content: await readWhole(entry) };
        else yield { ...described, open: () => entry as AsyncIterable<Buffer> }; // tar-stream's entries yield Buffers
      }
      entry.resume(); // what the reader left unread (a skipped entry's bytes)
    }
    await feeding;
    if (counter.bytes() === 0) throw new EmptyArchiveError("the sandbox's archive is empty (not even an end-of-archive marker): its tree did not arrive");
    complete = true;
  } finally {
    if (!complete) {
      (archive as Readable).destroy?.();
      await feeding.catch(() => undefined);
    }
  }
}

/**
 * Names below `directory` made relative to it; null for the directory's own entry. A name
 * outside it is kept as it is, for the reader to judge.
 */
export function rerooted(directory: string): (name: string) => string | null {
  const prefix = `${directory.replace(/^\/+|\/+$/g, '').split('/').at(-1)}/`;
  return (name) => {
    if (name === prefix || name === prefix.slice(0, -1)) return null;
    return name.startsWith(prefix) ? name.slice(prefix.length) : name;
  };
}
