import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { forkedScript } from '../forked-script.js';
import type { LaunchAnswer, LaunchRequest } from './launcher.process.js';

export interface LaunchOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  detached?: boolean;
  /** stdin, stdout, stderr: a pipe to the server, or /dev/null. */
  stdio: ['pipe' | 'ignore', 'pipe' | 'ignore', 'pipe' | 'ignore'];
}

/** What callers use of a command, as ChildProcess has it: pipes, pid, exit state, events ('spawn', 'error', 'exit', 'close') and kill. */
export interface LaunchedCommand extends EventEmitter {
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly pid: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals | number): boolean;
  /** Signals the command's process group (started detached), also when it has not started yet. */
  signalGroup(signal: NodeJS.Signals): void;
}

const PREAMBLE_BYTES = 33; // 32 hex characters of token, then the stream's index
const START_TIMEOUT_MS = 10_000;

/**
 * Starts commands from a small helper process instead of forking the server (see
 * launcher.process.ts for why): `launch` answers at once with a command whose pipes work before it
 * has started. When the helper cannot be started, or has gone, commands are spawned directly, as
 * before. One per process; the server's git and in-process sandbox commands go through it.
 */
export class ProcessLauncher {
  private helper: Promise<Helper | null> | null = null;
  private unavailable: string | null = null;
  private readonly reporters: ((message: string) => void)[] = [];

  /**
   * Where to tell that the helper could not start (the server's log). No logger is imported here:
   * Nest's, imported by this framework-free module, would land in a bundle chunk evaluated before
   * reflect-metadata is loaded, and the bundled server would not start.
   */
  reportUnavailableTo(report: (message: string) => void): void {
    this.reporters.push(report);
    if (this.unavailable) report(this.unavailable);
  }

  launch(file: string, args: readonly string[], options: LaunchOptions): LaunchedCommand {
    const command = new RemoteCommand(options);
    void this.helperReady().then((helper) => {
      if (helper) helper.start(command, file, args, options);
      else command.adopt(spawn(file, args, { cwd: options.cwd, env: options.env, detached: options.detached, stdio: options.stdio }));
    });
    return command;
  }

  /** Stops the helper (commands it started keep running; their exits are no longer reported). */
  async close(): Promise<void> {
    const helper = await this.helper;
    this.helper = null;
    helper?.close();
  }

  private helperReady(): Promise<Helper | null> {
    this.helper ??= Helper.start().catch((error: unknown) => {
      this.unavailable = `the process launcher could not start (${(error as Error).message}): commands are forked from the server itself`;
      for (const report of this.reporters) report(this.unavailable);
      return null;
    });
    return this.helper.then((helper) => {
      if (helper && !helper.alive) {
        this.helper = null; // gone since: the next command starts another
        return this.helperReady();
      }
      return helper;
    });
  }
}

/** The forked helper and the socket its commands' streams connect to. */
class Helper {
  alive = true;
  private nextId = 1;
  private readonly commands = new Map<number, RemoteCommand>();
  private readonly byToken = new Map<string, RemoteCommand>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly server: Server,
    private readonly dir: string,
  ) {
    child.on('message', (answer: LaunchAnswer) => {
      const command = this.commands.get(answer.id);
      command?.answer(answer);
      if (command?.finished) this.forget(answer.id);
    });
    child.once('exit', () => this.gone('the process launcher exited'));
    server.on('connection', (socket) => this.accept(socket));
  }

  static async start(): Promise<Helper> {
    // A directory only this user can enter holds the socket; each connection must also bring a command's token.
    const dir = mkdtempSync(join(tmpdir(), 'pipeline-service-launcher-'));
    const path = join(dir, 'socket');
    const server = createServer();
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
      server.unref();
      // Nothing of the server's environment (its secrets) goes to the helper: each command brings its own.
      const child = fork(forkedScript(import.meta.url, 'common/launcher', 'launcher'), [path], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [], env: { PATH: process.env.PATH ?? '' } });
      child.unref();
      child.channel?.unref();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the process launcher did not start')), START_TIMEOUT_MS);
        child.once('spawn', () => {
          clearTimeout(timer);
          resolve();
        });
        child.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
      return new Helper(child, server, dir);
    } catch (error) {
      server.close();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  start(command: RemoteCommand, file: string, args: readonly string[], options: LaunchOptions): void {
    const id = this.nextId++;
    const token = randomBytes(16).toString('hex');
    // While a command runs, the server waits for its answers: the channel keeps the process alive only then.
    if (this.commands.size === 0) this.child.channel?.ref();
    this.commands.set(id, command);
    this.byToken.set(token, command);
    command.id = id;
    command.token = token;
    const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const request: LaunchRequest = {
      id, token, file, args: [...args], cwd: options.cwd, env, detached: options.detached ?? false,
      streams: [options.stdio[0] === 'pipe', options.stdio[1] === 'pipe', options.stdio[2] === 'pipe'],
    };
    this.child.send(request, (error) => {
      if (!error) return;
      command.answer({ id, error: `the process launcher was not reached: ${error.message}` });
      this.forget(id);
    });
  }

  close(): void {
    this.child.disconnect?.();
    this.release();
  }

  /** No more commands here: the socket and its directory go. */
  private release(): void {
    this.alive = false;
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private forget(id: number): void {
    const command = this.commands.get(id);
    this.commands.delete(id);
    if (command?.token) this.byToken.delete(command.token);
    if (this.commands.size === 0) this.child.channel?.unref();
  }

  private gone(reason: string): void {
    this.release();
    for (const [id, command] of this.commands) command.answer({ id, error: reason });
    this.commands.clear();
    this.byToken.clear();
  }

  /** A stream of a command: its preamble says whose and which; anything else is dropped. */
  private accept(socket: Socket): void {
    let preamble = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      preamble = Buffer.concat([preamble, chunk]);
      if (preamble.length < PREAMBLE_BYTES) return;
      socket.off('data', onData);
      socket.pause();
      const text = preamble.toString('latin1', 0, PREAMBLE_BYTES);
      const command = this.byToken.get(text.slice(0, 32));
      const index = Number(text.charAt(32));
      if (!command || !command.attach(index, socket, preamble.subarray(PREAMBLE_BYTES))) socket.destroy();
      else if (command.finished) this.forget(command.id);
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  }
}

/**
 * A command started by the helper, as ChildProcess shows one: its pipes exist at once and are
 * joined to the command's streams when they connect; signals sent before it started are sent once it has.
 */
class RemoteCommand extends EventEmitter implements LaunchedCommand {
  id = 0;
  token: string | null = null;
  pid: number | undefined = undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly stdin: PassThrough | null;
  readonly stdout: PassThrough | null;
  readonly stderr: PassThrough | null;
  private readonly attached = new Set<number>();
  private readonly expected: number;
  private failed = false;
  private pendingSignals: { signal: NodeJS.Signals; group: boolean }[] = [];
  private exited = false;
  private openStreams: number;

  constructor(options: LaunchOptions) {
    super();
    const pipe = (index: number) => (options.stdio[index] === 'pipe' ? new PassThrough() : null);
    this.stdin = pipe(0);
    this.stdout = pipe(1);
    this.stderr = pipe(2);
    this.openStreams = [this.stdout, this.stderr].filter(Boolean).length;
    this.expected = [this.stdin, this.stdout, this.stderr].filter(Boolean).length;
    for (const output of [this.stdout, this.stderr]) output?.once('end', () => this.streamClosed());
  }

  kill(signal: NodeJS.Signals | number = 'SIGTERM'): boolean {
    return this.signal(signal as NodeJS.Signals, false);
  }

  /** Signals the command's process group (it was started detached); queued until it has started. */
  signalGroup(signal: NodeJS.Signals): void {
    this.signal(signal, true);
  }

  private signal(signal: NodeJS.Signals, group: boolean): boolean {
    if (this.exited) return false;
    if (this.pid === undefined) {
      this.pendingSignals.push({ signal, group });
      return true;
    }
    try {
      process.kill(group ? -this.pid : this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** Joins the command's stream `index` (0 stdin, 1 stdout, 2 stderr) to its pipe; false when there is no such stream to join. */
  attach(index: number, socket: Socket, early: Buffer): boolean {
    const pipe = [this.stdin, this.stdout, this.stderr][index];
    if (!pipe || this.attached.has(index)) return false;
    this.attached.add(index);
    if (index === 0) {
      pipe.pipe(socket);
      socket.on('error', () => undefined); // a command that does not read its input: EPIPE, as with a pipe
    } else {
      if (early.length > 0) pipe.write(early);
      socket.pipe(pipe);
      socket.on('error', (error) => pipe.destroy(error));
    }
    socket.resume();
    return true;
  }

  /**
   * Nothing more is to come: it failed, or it exited and every stream of it has joined. (Its
   * streams may join after its exit is told: a quick command's output must still be read.)
   */
  get finished(): boolean {
    return this.failed || (this.exited && this.attached.size === this.expected);
  }

  answer(answer: LaunchAnswer): void {
    if ('pid' in answer) {
      this.pid = answer.pid;
      this.emit('spawn');
      const signals = this.pendingSignals;
      this.pendingSignals = [];
      for (const { signal, group } of signals) this.signal(signal, group);
      return;
    }
    if ('error' in answer) {
      this.exited = true;
      this.failed = true;
      const error = Object.assign(new Error(answer.error), answer.code ? { code: answer.code } : {});
      // Pipes no stream of the command ever joined end here, as a failed spawn's pipes do.
      [this.stdin, this.stdout, this.stderr].forEach((pipe, index) => {
        if (pipe && !this.attached.has(index)) pipe.end();
      });
      this.emit('error', error);
      return;
    }
    this.exited = true;
    this.exitCode = answer.code;
    this.signalCode = answer.signal;
    this.emit('exit', answer.code, answer.signal);
    this.maybeClose();
  }

  /** The helper was not available: the command was spawned here; its events and pipes become this one's. */
  adopt(child: ChildProcess): void {
    child.stdout?.pipe(this.stdout!);
    child.stderr?.pipe(this.stderr!);
    if (this.stdin && child.stdin) this.stdin.pipe(child.stdin);
    child.once('spawn', () => this.answer({ id: 0, pid: child.pid! }));
    child.once('error', (error: NodeJS.ErrnoException) => this.answer({ id: 0, error: error.message, code: error.code }));
    child.once('exit', (code, signal) => this.answer({ id: 0, code, signal }));
  }

  private streamClosed(): void {
    this.openStreams -= 1;
    this.maybeClose();
  }

  private maybeClose(): void {
    if (this.exited && this.openStreams === 0) this.emit('close', this.exitCode, this.signalCode);
  }
}

/** The process's launcher: its helper starts with the first command. */
export const processLauncher = new ProcessLauncher();
