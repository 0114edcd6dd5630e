import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { type LaunchOptions, type LaunchedCommand, ProcessLauncher } from './process-launcher.js';

const launcher = new ProcessLauncher();
afterAll(() => launcher.close());

const PIPES: LaunchOptions['stdio'] = ['pipe', 'pipe', 'pipe'];

async function run(command: string, options: Partial<LaunchOptions> = {}, input?: string) {
  const child = launcher.launch('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH }, stdio: PIPES, detached: true, ...options });
  return finished(child, input);
}

async function finished(child: LaunchedCommand, input?: string) {
  if (child.stdin) child.stdin.end(input ?? '');
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c: number | null, s: NodeJS.Signals | null) => resolve([c, s]));
  });
  return { code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString(), pid: child.pid };
}

describe('ProcessLauncher', () => {
  it('runs a command from its helper: output, errors, exit code and input as with spawn', async () => {
    const result = await run('echo out; echo err >&2; read line; echo "got $line"; exit 3', {}, 'hello\n');
    expect(result).toMatchObject({ code: 3, signal: null, stderr: 'err\n' });
    expect(result.stdout.toString()).toBe('out\ngot hello\n');
    // Started by the helper, not forked from this process.
    const parent = await run('echo $PPID');
    expect(Number(parent.stdout.toString())).not.toBe(process.pid);
    expect(readFileSync(`/proc/${parent.stdout.toString().trim()}/cmdline`, 'utf8')).toContain('launcher.process');
  });

  it('keeps a quick command\'s output, which may join after its exit is told', async () => {
    const running = Array.from({ length: 60 }, (_, i) => run(`printf 'line %s' ${i}; printf e >&2`));
    // A busy server: exits and connections wait together, and may be taken in either order.
    for (let round = 0; round < 20; round++) {
      const until = Date.now() + 30;
      while (Date.now() < until);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await Promise.all(running);
    expect(results.map((r) => r.stdout.toString())).toEqual(Array.from({ length: 60 }, (_, i) => `line ${i}`));
    expect(results.every((r) => r.stderr === 'e' && r.code === 0)).toBe(true);
  });

  it('carries large output whole, and /dev/null where no pipe is asked for', async () => {
    const result = await run('head -c 5000000 /dev/zero; echo tail >&2');
    expect(result.stdout.length).toBe(5_000_000);
    expect(result.stderr).toBe('tail\n');
    const quiet = await run('cat; echo done', { stdio: ['ignore', 'pipe', 'ignore'] });
    expect(quiet.stdout.toString()).toBe('done\n');
  });

  it('keeps the server\'s environment from the helper: a command gets only the environment it is given', async () => {
    const helper = (await run('echo $PPID')).stdout.toString().trim();
    const environ = readFileSync(`/proc/${helper}/environ`, 'utf8').split('\0').filter(Boolean);
    // Only PATH, beside the IPC channel's own two variables.
    expect(environ.map((entry) => entry.split('=')[0]).filter((name) => !name?.startsWith('NODE_CHANNEL_'))).toEqual(['PATH']);
    const result = await run('echo "[$SECRET_THING]"', { env: { PATH: process.env.PATH, SECRET_THING: 'given' } });
    expect(result.stdout.toString()).toBe('[given]\n');
  });

  it('reports a command that cannot start as an error, as spawn does', async () => {
    const child = launcher.launch('/no/such/program', [], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    await expect(new Promise((_, reject) => child.once('error', reject))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('signals a command\'s group even before it has started', async () => {
    const child = launcher.launch('/bin/sh', ['-c', 'sleep 30 & sleep 30; wait'], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.signalGroup('SIGKILL');
    const result = await finished(child);
    expect(result.signal).toBe('SIGKILL');
  });

  it('drops a connection that does not bring a command\'s token', async () => {
    const helper = (await run('echo $PPID')).stdout.toString().trim();
    const socketPath = readFileSync(`/proc/${helper}/cmdline`, 'utf8').split('\0')[2]!;
    const stranger = createConnection(socketPath);
    stranger.write('0'.repeat(32) + '1');
    await new Promise((resolve) => stranger.once('close', resolve));
  });

  it('fails the commands of a helper that died, and starts another for the next command', async () => {
    const child = launcher.launch('/bin/sh', ['-c', 'echo $PPID; sleep 30'], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const helper = await new Promise<number>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))));
    const failed = new Promise((_, reject) => child.once('error', reject));
    process.kill(helper, 'SIGKILL');
    await expect(failed).rejects.toThrow('the process launcher exited');
    child.signalGroup('SIGKILL');
    const next = await run('echo $PPID');
    expect(Number(next.stdout.toString())).not.toBe(helper);
    expect(next.code).toBe(0);
  });

  it('forks commands from this process when its helper cannot start', async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent/for/the/launcher'; // no directory for its socket
    const fallback = new ProcessLauncher();
    try {
      const child = fallback.launch('/bin/sh', ['-c', 'read line; echo "$line $PPID"; exit 4'], { env: { PATH: process.env.PATH }, stdio: PIPES });
      const result = await finished(child, 'direct\n');
      expect(result.code).toBe(4);
      expect(result.stdout.toString()).toBe(`direct ${process.pid}\n`);
      const told: string[] = [];
      fallback.reportUnavailableTo((message) => told.push(message));
      expect(told).toEqual([expect.stringContaining('the process launcher could not start (ENOENT')]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await fallback.close();
    }
  });
});
