import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FindingsBody, HealthBody } from './response-bodies.js';

/**
 * End-to-end support: the BUILT server and CLI as processes, the way operators run them. Each
 * server gets a free port and only the environment a test names, so test files run in parallel.
 */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
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
  /** The first 200 from GET /health: milliseconds after `startedAt`, and its body (null with `waitForHealth: false`). */
  firstHealth: FirstAnswer<HealthBody> | null;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

export interface FirstAnswer<T> {
  /** Milliseconds from spawn to the first 200. */
  ms: number;
  body: T;
}

export interface StartOptions {
  /** Wait for the first 200 from /health before returning (default true). */
  waitForHealth?: boolean;
  /** How long to wait for it (default 15 s). */
  timeoutMs?: number;
  /** Listen on this port (default: a free one), e.g. one an authority's redirect URI already names. */
  port?: number;
}

/**
 * `node --max-semi-space-size=4 dist/main.js` (as `npm start`) with only the given environment,
 * on a free port of 127.0.0.1; by default returns once /health has answered 200.
 */
export async function startServer(vars: Record<string, string>, opts: StartOptions = {}): Promise<ServerProcess> {
  requireBuild();
  const port = opts.port ?? (await freePort());
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
  const server: ServerProcess = {
    child, pid: child.pid, baseUrl: `http://127.0.0.1:${port}`, startedAt, exited, firstHealth: null,
    output: () => output,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  if (opts.waitForHealth !== false) {
    try {
      server.firstHealth = await firstAnswer(server, '/health', opts.timeoutMs);
    } catch (error) {
      await server.stop(2000);
      throw error;
    }
  }
  return server;
}

/**
 * Polls `path` every 20 ms until it answers 200; the time is measured from the spawn. Fails at
 * once, with the process output, when the server exits first.
 */
export async function firstAnswer<T>(server: ServerProcess, path: string, timeoutMs = 15_000): Promise<FirstAnswer<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`the server exited (${server.child.exitCode ?? server.child.signalCode}) before ${path} answered:\n${server.output()}`);
    }
    try {
      const res = await fetch(`${server.baseUrl}${path}`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) {
        const ms = Date.now() - server.startedAt;
        return { ms, body: (await res.json()) as T };
      }
      await res.body?.cancel();
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${path} did not answer 200 within ${timeoutMs} ms:\n${server.output()}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}


/** The first 200s of /health (taken by `startServer`) and of /api/config/findings, timed from the spawn. */
export async function firstAnswers(server: ServerProcess): Promise<{ health: FirstAnswer<HealthBody>; findings: FirstAnswer<FindingsBody> }> {
  const health = server.firstHealth ?? (await firstAnswer<HealthBody>(server, '/health'));
  const findings = await firstAnswer<FindingsBody>(server, '/api/config/findings');
  return { health, findings };
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
