import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InProcessBackend } from './in-process.backend.js';
import type { OutputStream } from './sandbox-backend.js';

const backend = new InProcessBackend('/usr/bin:/bin');

function collector() {
  const lines: { stream: OutputStream; line: string }[] = [];
  return { lines, onLine: (stream: OutputStream, line: string) => lines.push({ stream, line }) };
}

describe('in-process sandbox backend', () => {
  it('runs commands in a fresh directory with only the environment it is given, and removes it', async () => {
    const sandbox = await backend.create({ runId: 'run-1', name: 'web', env: { SERVICE_REPO: 'web' } });
    const out = collector();
    const result = await sandbox.exec('pwd; env | cut -d= -f1 | sort; echo oops >&2', { timeoutMs: 5000, onLine: out.onLine });
    expect(result).toEqual({ exitCode: 0, signal: null, timedOut: false });
    const stdout = out.lines.filter((l) => l.stream === 'stdout').map((l) => l.line);
    expect(stdout[0]).toBe(sandbox.workdir);
    expect(stdout.slice(1).filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n))).toEqual(['HOME', 'LANG', 'PATH', 'SERVICE_REPO']);
    expect(out.lines).toContainEqual({ stream: 'stderr', line: 'oops' });
    await sandbox.destroy();
    expect(existsSync(sandbox.workdir)).toBe(false);
  });

  it('frees the sandboxes an earlier process left renamed aside for removal, and only those', async () => {
    const previous = process.env.TMPDIR;
    const temporary = mkdtempSync(join(tmpdir(), 'in-process-sweep-'));
    try {
      process.env.TMPDIR = temporary; // os.tmpdir() reads it on every call
      mkdirSync(join(temporary, '.pipeline-service-removing-0a1b/work/src'), { recursive: true });
      writeFileSync(join(temporary, '.pipeline-service-removing-0a1b/work/src/app.js'), 'left\n');
      mkdirSync(join(temporary, 'pipeline-service-live0000-web-x'));
      writeFileSync(join(temporary, 'unrelated.txt'), 'kept\n');
      const fresh = new InProcessBackend('/usr/bin:/bin');
      const sandbox = await fresh.create({ runId: 'run-sweep', name: 'web', env: {} });
      expect(await fresh.leftBehindSwept()).toBe(1);
      const left = readdirSync(temporary);
      expect(left).not.toContain('.pipeline-service-removing-0a1b');
      expect(left).toEqual(expect.arrayContaining(['pipeline-service-live0000-web-x', 'unrelated.txt']));
      await sandbox.destroy();
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      rmSync(temporary, { recursive: true, force: true });
    }
  });

  it('gives HOME a directory of its own, removed with the sandbox', async () => {
    const sandbox = await backend.create({ runId: 'run-5', name: 'home', env: {} });
    const out = collector();
    await sandbox.exec('echo "$HOME"; touch "$HOME/.npmrc"', { timeoutMs: 5000, onLine: out.onLine });
    const home = out.lines[0]!.line;
    expect(home).not.toBe(sandbox.workdir);
    expect(existsSync(join(home, '.npmrc'))).toBe(true);
    await sandbox.destroy();
    expect(existsSync(home)).toBe(false);
  });

  it('reports the exit code of a failing command', async () => {
    const sandbox = await backend.create({ runId: 'run-2', name: 'api', env: {} });
    try {
      expect((await sandbox.exec('exit 7', { timeoutMs: 5000, onLine: () => undefined })).exitCode).toBe(7);
    } finally {
      await sandbox.destroy();
    }
  });

  it('kills a command (and its children) that overruns its timeout', async () => {
    const sandbox = await backend.create({ runId: 'run-3', name: 'slow', env: {} });
    try {
      const started = Date.now();
      const result = await sandbox.exec('sleep 30 & sleep 30', { timeoutMs: 300, onLine: () => undefined });
      expect(result.timedOut).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await sandbox.destroy();
    }
  });

  it('streams output lines as they arrive', async () => {
    const sandbox = await backend.create({ runId: 'run-4', name: 'stream', env: {} });
    const seen: number[] = [];
    const started = Date.now();
    try {
      await sandbox.exec('echo one; sleep 0.5; echo two', { timeoutMs: 5000, onLine: () => seen.push(Date.now() - started) });
    } finally {
      await sandbox.destroy();
    }
    expect(seen).toHaveLength(2);
    expect(seen[1]! - seen[0]!).toBeGreaterThan(300);
  });

  it('kills a command when its abort signal fires', async () => {
    const sandbox = await backend.create({ runId: 'run-9', name: 'abort', env: {} });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const result = await sandbox.exec('sleep 30', { timeoutMs: 60_000, onLine: () => undefined, signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.signal).toBe('SIGKILL');
    await sandbox.destroy();
  });
});
