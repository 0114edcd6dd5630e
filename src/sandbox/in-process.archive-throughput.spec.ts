import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { InProcessBackend } from './in-process.backend.js';

const FILES = 5000;
const FILE_SIZE = Math.floor((50 * 1024 * 1024) / FILES);

/** 5,000 files of 10 KiB in 50 directories, produced as it is read (never whole in memory). */
function generatedTree(): Readable {
  const archive = pack();
  const content = Buffer.alloc(FILE_SIZE, 'x');
  void (async () => {
    for (let i = 0; i < FILES; i += 1) {
      await new Promise<void>((resolve, reject) => {
        archive.entry({ name: `d${i % 50}/f${i}.txt`, mode: i % 10 === 0 ? 0o755 : 0o644 }, content, (error) => (error ? reject(error) : resolve()));
      });
    }
    archive.finalize();
  })().catch((error: Error) => archive.destroy(error));
  return Readable.from(archive, { objectMode: false });
}

async function countEntries(tar: Readable): Promise<{ files: number; bytes: number }> {
  const entries = extract();
  const feeding = pipeline(tar, entries);
  let files = 0;
  let bytes = 0;
  for await (const entry of entries) {
    if (entry.header.type === 'file') files += 1;
    for await (const chunk of entry) bytes += (chunk as Buffer).length;
  }
  await feeding;
  return { files, bytes };
}

describe('in-process sandbox archive throughput', () => {
  it('moves 5,000 files / 50 MB in and out (timings printed, not asserted)', async () => {
    const sandbox = await new InProcessBackend().create({ runId: 'throughput', name: 'big', env: {} });
    try {
      let started = performance.now();
      await sandbox.putArchive(generatedTree());
      const put = performance.now() - started;

      started = performance.now();
      const got = await countEntries(await sandbox.getArchive());
      const get = performance.now() - started;

      expect(got).toEqual({ files: FILES, bytes: FILES * FILE_SIZE });
      console.log(`archive throughput: ${FILES} files, ${(FILES * FILE_SIZE / 1024 / 1024).toFixed(0)} MiB — put ${put.toFixed(0)} ms, get ${get.toFixed(0)} ms`);
    } finally {
      await sandbox.destroy();
    }
  });
});
