// A host-directory Sandbox for benches, moving trees as tar streams with tar-stream, as the Sandbox
// interface does (used when the built in-process backend has no archive methods yet). Small files
// are written and read several at a time: a tree of thousands of small files is bound by fs round
// trips, which one-at-a-time streams would serialize.
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

const SMALL = 1024 * 1024;
const PARALLEL = 16;

export class DirectorySandbox {
  name = 'bench';

  constructor(dir) {
    this.workdir = dir;
  }

  /** A fresh directory under `parent` (removed with it if the bench is interrupted). */
  static async create(parent = tmpdir()) {
    return new DirectorySandbox(await mkdtemp(join(parent, 'bench-sandbox-')));
  }

  async putArchive(archive) {
    const extract = tar.extract();
    const feeding = pipeline(archive, extract);
    const writes = new Set();
    const settle = () => Promise.all(writes);
    for await (const entry of extract) {
      const { name, type, mode, linkname, size } = entry.header;
      const target = join(this.workdir, posix.normalize(name));
      if (!target.startsWith(this.workdir)) throw new Error(`refused ${name}`);
      if (type === 'directory') {
        await mkdir(target, { recursive: true });
        entry.resume();
      } else if (type === 'symlink') {
        await settle();
        await symlink(linkname, target);
        entry.resume();
      } else if (type === 'file' && size > SMALL) {
        await pipeline(entry, createWriteStream(target, { mode }));
      } else if (type === 'file') {
        const chunks = [];
        for await (const chunk of entry) chunks.push(chunk);
        const write = writeFile(target, Buffer.concat(chunks), { mode }).finally(() => writes.delete(write));
        writes.add(write);
        if (writes.size >= PARALLEL) await Promise.race(writes);
      } else entry.resume();
    }
    await feeding;
    await settle();
  }

  async getArchive() {
    const entries = [];
    const walk = async (relative) => {
      for (const name of await readdir(join(this.workdir, relative))) {
        const path = relative ? `${relative}/${name}` : name;
        const stats = await lstat(join(this.workdir, path));
        entries.push({ path, stats });
        if (stats.isDirectory()) await walk(path);
      }
    };
    await walk('');
    const pack = tar.pack();
    const add = (header, body) => new Promise((resolve, reject) => {
      const done = (e) => (e ? reject(e) : resolve());
      if (body === undefined) pack.entry(header, done);
      else pack.entry(header, body, done);
    });
    // Contents of the next small files are read ahead while earlier ones are packed.
    const reads = entries.map(() => null);
    const readAhead = (i) => {
      for (let j = i; j < Math.min(entries.length, i + PARALLEL); j++) {
        const { path, stats } = entries[j];
        if (!reads[j] && stats.isFile() && stats.size <= SMALL) reads[j] = readFile(join(this.workdir, path));
      }
    };
    (async () => {
      for (const [i, { path, stats }] of entries.entries()) {
        readAhead(i);
        const full = join(this.workdir, path);
        const mode = stats.mode & 0o7777;
        if (stats.isDirectory()) await add({ name: `${path}/`, type: 'directory', mode }, undefined);
        else if (stats.isSymbolicLink()) await add({ name: path, type: 'symlink', linkname: await readlink(full) }, undefined);
        else if (stats.isFile() && reads[i]) await add({ name: path, mode }, await reads[i]);
        else if (stats.isFile()) await pipeline(createReadStream(full), pack.entry({ name: path, size: stats.size, mode }));
        reads[i] = null;
      }
      pack.finalize();
    })().catch((error) => pack.destroy(error));
    return Readable.from(pack, { objectMode: false });
  }

  async exec() {
    throw new Error('the bench sandbox runs no commands');
  }

  async destroy() {
    await rm(this.workdir, { recursive: true, force: true });
  }
}
