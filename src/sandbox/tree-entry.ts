/**
 * One entry of a sandbox's tree as its archive would carry it, handed over without an archive of
 * this process's making (`Sandbox.readTree`): the in-process backend's tree is a directory on this
 * host, and encoding 10,000 files as tar only to decode them again cost more than reading them
 * (0.8–1.3 s against 0.2 s on the bench machine). What it says is the sandbox's word, as
 * untrusted as an archive's headers.
 */
export interface TreeEntry {
  /** `/`-separated, relative to the working directory (a directory's may end in `/`). */
  name: string;
  /** `link` (a hard link to `linkname`) comes only from archives; anything else is left out. */
  type: 'file' | 'directory' | 'symlink' | 'link';
  /** Permission bits. */
  mode: number;
  /** Last modification, when known (an archive of the tree carries it; git keeps none). */
  mtimeMs?: number;
  /** A file's length in bytes; 0 for anything else. */
  size: number;
  /** A link's target. */
  linkname?: string;
  /** A file's bytes, when they were read whole; otherwise `open()` streams them. */
  content?: Buffer;
  /**
   * Streams a file's bytes (a large one, not held whole): to be read to its end, once, before the
   * next entry is asked for. A length other than `size` is an error of the reader.
   */
  open?(): AsyncIterable<Buffer>;
  /**
   * Set only by a backend that can tell without reading the file (the in-process one, from its
   * inode, size and times, as git's index does): the file is exactly as it was when the tree was
   * marked (`Sandbox.markTree`). Its bytes are then not read unless `open()` is called.
   */
  asMarked?: true;
}

/** What `Sandbox.markTree` answers: handed back to the same sandbox's `readTree`. */
export interface TreeMark {
  readonly takenAt: number;
}
