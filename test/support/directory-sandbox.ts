import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import type { ExecResult, Sandbox } from '../../src/sandbox/sandbox-backend.js';

/**
 * A test-only Sandbox whose tree is a directory on this host, moved in and out with tar-stream
 * exactly as the Sandbox interface describes (the backends' own archive code is not used here,
 * so these tests depend on the interface only). The test edits `dir` directly to play the run.
 */
export class DirectorySandbox implements Sandbox {
  readonly name = 'test';

  private constructor(readonly dir: string) {}

  get workdir(): string {
    return this.dir;
  }

  static async create(): Promise<DirectorySandbox> {
    return new DirectorySandbox(await mkdtemp(join(tmpdir(), 'directory-sandbox-')));
  }

  exec(): Promise<ExecResult> {
    return Promise.reject(new Error('DirectorySandbox does not run commands'));
  }

  async putArchive(archive: Readable): Promise<void> {
    const extract = tar.extract();
    const feeding = pipeline(archive, extract);
    for await (const entry of extract) {
      const { name, type, mode, linkname } = entry.header;
      const target = join(this.dir, posix.normalize(name));
      if (!target.startsWith(this.dir)) throw new Error(`refused ${name}`);
      if (type === 'directory') {
        await mkdir(target, { recursive: true });
        entry.resume();
      } else if (type === 'symlink') {
        await rm(target, { force: true });
        await symlink(linkname ?? '', target);
        entry.resume();
      } else if (type === 'file') {
        await rm(target, { force: true });
        await pipeline(entry, createWriteStream(target, { mode: mode ?? 0o644 }));
      } else entry.resume();
    }
    await feeding;
  }

  async getArchive(): Promise<Readable> {
    const pack = tar.pack();
    void (async () => {
      try {
        await this.packInto(pack, '');
        pack.finalize();
      } catch (error) {
        pack.destroy(error as Error);
      }
    })();
    return Readable.from(pack, { objectMode: false });
  }

  /** Raw tar entries, for tests of what the server refuses (`.git/…`, `../…`). */
  static archiveOf(entries: { name: string; content?: string; type?: 'file' | 'symlink' | 'directory'; linkname?: string; mode?: number }[]): Readable {
    const pack = tar.pack();
    for (const { name, content = '', type = 'file', linkname, mode } of entries) {
      if (type === 'file') pack.entry({ name, mode: mode ?? 0o644 }, content);
      else pack.entry({ name, type, linkname, mode });
    }
    pack.finalize();
    return Readable.from(pack, { objectMode: false });
  }

  async destroy(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  private async packInto(pack: tar.Pack, relative: string): Promise<void> {
    for (const name of (await readdir(join(this.dir, relative))).sort()) {
      const path = relative ? `${relative}/${name}` : name;
      const full = join(this.dir, path);
      const stats = await lstat(full);
      if (stats.isDirectory()) {
        await entry(pack, { name: `${path}/`, type: 'directory', mode: stats.mode & 0o7777 });
        await this.packInto(pack, path);
      } else if (stats.isSymbolicLink()) {
        await entry(pack, { name: path, type: 'symlink', linkname: await readlink(full) });
      } else if (stats.isFile()) {
        const sink = pack.entry({ name: path, size: stats.size, mode: stats.mode & 0o7777 });
        await pipeline(createReadStream(full), sink);
      }
    }
  }
}

function entry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0]): Promise<void> {
  return new Promise((resolve, reject) => pack.entry(header, (error) => (error ? reject(error) : resolve())));
}
