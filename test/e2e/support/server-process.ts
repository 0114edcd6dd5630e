import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** End-to-end support: the BUILT server and CLI as processes, the way operators run them. */
export const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const NODE = join(ROOT, 'node_modules/.bin/node');
export const SERVER_ENTRY = join(ROOT, 'dist/main.js');
export const CLI_BIN = join(ROOT, 'bin/pipeline-service.js');
export const CLI_ENTRY = join(ROOT, 'dist/cli/main.js');

/** Fails with a clear message when the build is missing (CI builds before testing). */
export function requireBuild(): void {
  for (const file of [SERVER_ENTRY, CLI_ENTRY]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: the end-to-end tests run the built server; run \`npm run build\` first`);
    }
  }
}

/** A port nothing listens on right now (listen on 0, note it, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

export function tempDir(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Only what a test names, plus PATH: nothing ambient (no DATABASE_URL or KVSTORE_URL leaking in). */
function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...vars };
}

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** `Date.now()` just before the process was spawned. */
  startedAt: number;
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** `node --max-semi-space-size=4 dist/main.js` with the given environment, on a free port. */
export async function startServer(vars: Record<string, string>): Promise<ServerProcess> {
  requireBuild();
  const port = await freePort();
  let output = '';
  const startedAt = Date.now();
  const child = spawn(NODE, ['--max-semi-space-size=4', SERVER_ENTRY], {
    cwd: ROOT,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...vars }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  if (child.pid === undefined) throw new Error('the server process did not start');
  const pid = child.pid;
  return {
    child, pid, baseUrl: `http://127.0.0.1:${port}`, startedAt, exited,
    output: () => output,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** GET → status and parsed JSON; throws when nothing answers within `timeoutMs`. */
export async function getJson<T>(url: string, timeoutMs = 2000): Promise<{ status: number; body: T }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, body: (await res.json()) as T };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bin/pipeline-service.js ARGS` (which runs dist/cli/main.js) with the given environment. */
export async function runCli(args: string[], vars: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  requireBuild();
  try {
    const { stdout, stderr } = await promisify(execFile)(NODE, [CLI_BIN, ...args], {
      cwd: ROOT, env: childEnv({ LOG_LEVEL: 'warn', ...vars }), timeout: timeoutMs, maxBuffer: 10 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** True while `pid` is a live process (a zombie, exited but not yet reaped, counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Pids of embedded-database processes serving `dataDir` (their command line names its pgdata). */
export async function embeddedDatabasePids(dataDir: string): Promise<number[]> {
  try {
    const { stdout } = await promisify(execFile)('pgrep', ['-f', `embedded-postgres.process.*${dataDir}`]);
    return stdout.split('\n').filter(Boolean).map(Number).filter((pid) => pid !== process.pid);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}
