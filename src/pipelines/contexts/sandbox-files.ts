import { Readable } from 'node:stream';
import { pack } from 'tar-stream';
import type { Sandbox } from '../../sandbox/sandbox-backend.js';

/** A file to add to a tree, path relative to its root (`/`-separated); text is written as UTF-8. */
export interface TreeFile {
  path: string;
  content: string | Buffer;
}

/**
 * Adds the files to the sandbox's tree as one tar stream (`Sandbox.putArchive`, so a container
 * sandbox works the same): their folders are created, mode 0644. Paths must be relative and
 * stay inside the tree (the sandbox refuses anything else too).
 */
export async function writeSandboxFiles(sandbox: Sandbox, files: readonly TreeFile[]): Promise<void> {
  const archive = pack();
  const folders = new Set<string>();
  for (const { path } of files) {
    if (path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '' || part === '.')) throw new Error(`refusing to write ${path}: not a plain relative path`);
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const mtime = new Date();
  for (const folder of [...folders].sort()) archive.entry({ name: `${folder}/`, type: 'directory', mode: 0o755, mtime });
  for (const { path, content } of files) archive.entry({ name: path, type: 'file', mode: 0o644, mtime }, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  archive.finalize();
  await sandbox.putArchive(Readable.from(archive, { objectMode: false }));
}
