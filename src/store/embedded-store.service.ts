import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import type { EmbeddedStoreEnvironment, ServiceEnvironment } from '../config/environment.js';
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 10_000;
const STOP_GRACE_MS = 5_000;

/**
 * `KVSTORE_URL=embedded` (contract, "The embedded store"): a `redis-server` child of this
 * process, listening only on a unix socket under SERVICE_DATA_DIR, its append-only file beside
 * it, restarted when it dies and stopped with the server. Every store client connects to the
 * socket and reconnects by itself, so a restart is an outage of the store like any other.
 * Without the binary the store is `down`, and the store probe's blocking finding names the fix.
 */
@Injectable()
export class EmbeddedStoreService implements OnApplicationShutdown {
  private readonly logger = new Logger('EmbeddedStore');
  private readonly settings: EmbeddedStoreEnvironment | null;
  private child: ChildProcess | null = null;
  private stopping = false;
  private restarts = 0;
  private restartDelay = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private lastOutput = '';
  /** Why the store cannot run at all (no binary): reported as `down`, not retried. */
  readonly unavailable: string | null = null;
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  constructor(@Inject(SERVICE_ENVIRONMENT) env: ServiceEnvironment) {
    this.settings = env.embeddedStore;
    if (!this.settings) return;
    const binary = findExecutable(this.settings.server, env.variables['PATH'] ?? '');
    if (!binary) {
      this.unavailable = `KVSTORE_URL=embedded needs ${this.settings.server}, which is not ${this.settings.server.includes('/') ? 'an executable file' : 'on PATH'}: `
        + 'install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), name its binary with SERVICE_REDIS_SERVER, or set KVSTORE_URL to a Redis URL';
      return;
    }
    mkdirSync(this.settings.dir, { recursive: true, mode: 0o700 });
    this.stopLeftover();
    process.once('exit', this.killOnExit);
    this.start(binary);
  }

  get isEmbedded(): boolean {
    return this.settings !== null;
  }

  /** For /health's `redis` reason: the child, its pid and how often it was restarted. */
  describe(): string {
    if (!this.settings) return '';
    const pid = this.child?.pid;
    return `embedded redis-server${pid ? ` (pid ${pid})` : ' (not running)'} on ${this.settings.socket}${this.restarts > 0 ? `, restarted ${this.restarts} time${this.restarts === 1 ? '' : 's'}` : ''}`;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  private start(binary: string): void {
    const { dir, socket } = this.settings!;
    const child = spawn(binary, [
      '--port', '0', // no TCP listener at all: only the socket below
      '--unixsocket', socket, '--unixsocketperm', '700',
      '--dir', dir, '--pidfile', join(dir, 'redis.pid'),
      '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '',
      '--daemonize', 'no', '--logfile', '',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const remember = (chunk: Buffer) => { this.lastOutput = `${this.lastOutput}${chunk.toString()}`.slice(-2000); };
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
    child.once('spawn', () => {
      this.logger.log(`started ${this.describe()}`);
      // A child that stays up a while has recovered: the next failure starts the back-off afresh.
      setTimeout(() => { if (this.child === child) this.restartDelay = RESTART_MIN_MS; }, RESTART_MAX_MS).unref();
    });
    child.once('error', (error) => this.logger.warn(`redis-server could not start: ${error.message}`));
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (this.stopping) return;
      const last = this.lastOutput.trim().split('\n').slice(-2).join(' | ');
      this.logger.warn(`embedded redis-server exited (${signal ?? `code ${code}`}); restarting in ${this.restartDelay} ms${last ? `: ${last}` : ''}`);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (this.stopping) return;
        this.restarts += 1;
        this.start(binary);
      }, this.restartDelay);
      this.restartTimer.unref();
      this.restartDelay = Math.min(RESTART_MAX_MS, this.restartDelay * 2);
    });
  }

  /**
   * A server killed without its shutdown leaves its child running on the same files: two
   * redis-servers on one append-only file would corrupt it, so the leftover is stopped first.
   */
  private stopLeftover(): void {
    const pidFile = join(this.settings!.dir, 'redis.pid');
    if (!existsSync(pidFile)) return;
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
    if (Number.isInteger(pid) && pid > 1 && isRedisServer(pid)) {
      this.logger.warn(`stopping a leftover embedded redis-server (pid ${pid})`);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    rmSync(pidFile, { force: true });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    process.off('exit', this.killOnExit);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM'); // redis-server flushes its append-only file and removes the socket
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}

function isRedisServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    return false;
  }
}

/** `name` when it holds a slash, else the first executable `name` on PATH; null when none. */
export function findExecutable(name: string, path: string): string | null {
  const candidates = name.includes('/') ? [name] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return null;
}
