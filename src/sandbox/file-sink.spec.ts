import { execFileSync, spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSink } from './file-sink.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'file-sink-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('FileSink', () => {
  it('replaces a FIFO a command holds open for reading, instead of writing the content into it', async () => {
    // With a reader, the open succeeds (O_NONBLOCK fails only without one): the file must still end up a file.
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    // Read-write: the open does not wait for a writer, and the descriptor stays open across the exec.
    const reader = spawn('sh', ['-c', 'exec 3<>"$0"; exec sleep 30', path], { stdio: 'ignore' });
    try {
      await readerOpened(reader.pid!, path);
      const sink = new FileSink(path, 0o644);
      sink.write(Buffer.from('content'));
      await sink.finish();
      expect(lstatSync(path).isFile()).toBe(true);
      expect(readFileSync(path, 'utf8')).toBe('content');
    } finally {
      reader.kill('SIGKILL');
    }
  });
});

/** Resolves once process `pid` has `path` open (its descriptors in /proc). */
async function readerOpened(pid: number, path: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const fds = (() => {
      try {
        return readdirSync(`/proc/${pid}/fd`).map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return [];
      }
    })();
    if (fds.includes(path)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`process ${pid} never opened ${path}`);
}
