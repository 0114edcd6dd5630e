import { processLauncher } from '../../common/launcher/process-launcher.js';
import { PassThrough, type Readable } from 'node:stream';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import { groupDeadline, signalGroup } from '../../common/process-group.js';
import type { GitCredential } from './git-credential.js';
import { credentialSecrets, gitEnvironment } from './git-environment.js';

/** Stderr kept for the error message: git's last words are the useful ones. */
const STDERR_LIMIT = 64 * 1024;

export interface GitCliOptions {
  /** An empty directory: git's HOME. */
  home: string;
  /** PATH the git process gets. */
  path: string;
}

export interface GitRunOptions {
  /** Working directory of git. */
  cwd?: string;
  /** Credential for `credentialUrl`, passed through the environment only (see gitEnvironment). */
  credential?: GitCredential | null;
  credentialUrl?: string;
  timeoutMs: number;
  config?: Readonly<Record<string, string>>;
  variables?: Readonly<Record<string, string>>;
  /** Written to git's stdin. */
  input?: string;
}

/** Git exited non-zero, was killed for overrunning, or could not be started. Text already scrubbed. */
export class GitCommandFailure extends Error {
  override readonly name = 'GitCommandFailure';
  constructor(
    /** The subcommand (`fetch`, `push`, …), never the arguments (URLs and paths stay out of logs). */
    readonly subcommand: string,
    readonly exitCode: number | null,
    readonly timedOut: boolean,
    readonly stderr: string,
    /** Set when git could not be spawned at all (ENOENT: git is not installed). */
    readonly spawnError: string | null = null,
  ) {
    super(spawnError ?? (timedOut ? `git ${subcommand} timed out` : `git ${subcommand} exited with ${exitCode}: ${lastLines(stderr)}`));
  }
}

/** A running git whose stdout the caller consumes as a stream (`git archive`). */
export interface GitStream {
  stdout: Readable;
  /** Resolves when git exited 0, rejects with GitCommandFailure otherwise. */
  done: Promise<void>;
  /** Ends git (and its children) when the caller gives up reading; harmless once it has exited. */
  stop(): void;
}

/** Runs the git CLI with argument arrays (no shell), an isolated environment and a time limit. */
export class GitCli {
  constructor(private readonly options: GitCliOptions) {}

  /** Runs git to completion; stdout as a string (UTF-8). */
  async run(args: readonly string[], options: GitRunOptions): Promise<string> {
    const chunks: Buffer[] = [];
    const started = this.start(args, options);
    started.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    await started.done;
    return Buffer.concat(chunks).toString('utf8');
  }

  /**
   * Starts git; its stdout is left for the caller to read, whenever it starts reading. Node
   * resumes, and so throws away, the output of a child that exits while nobody reads it: a caller
   * that awaits anything first (a sandbox's putArchive resolving its directory) would read an
   * empty stream when git was quick, and a sandbox would get an empty tree. Piping it at once into
   * a PassThrough keeps it (backpressure still holds git back from a slow reader).
   */
  stream(args: readonly string[], options: GitRunOptions): GitStream {
    const started = this.start(args, options);
    const stdout = started.stdout.pipe(new PassThrough());
    started.stdout.once('error', (error) => stdout.destroy(error));
    return { ...started, stdout };
  }

  private start(args: readonly string[], options: GitRunOptions): GitStream {
    const secrets = credentialSecrets(options.credential);
    const subcommand = args.find((arg) => !arg.startsWith('-')) ?? 'git';
    const env = gitEnvironment({
      home: this.options.home,
      path: this.options.path,
      credential: options.credential && options.credentialUrl ? { value: options.credential, url: options.credentialUrl } : null,
      config: options.config,
      variables: options.variables,
    });
    // Its own process group, so a timeout also ends git-remote-http, index-pack and pack-objects.
    const child = processLauncher.launch('git', args, { cwd: options.cwd, env, detached: true, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (options.input !== undefined) child.stdin?.end(options.input);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_LIMIT);
    });
    const done = new Promise<void>((resolve, reject) => {
      const deadline = groupDeadline(child, options.timeoutMs);
      child.once('error', (error) => {
        deadline.clear();
        reject(new GitCommandFailure(subcommand, null, false, '', scrubSecrets(`git could not be started: ${error.message}`, secrets)));
      });
      child.once('close', (code) => {
        deadline.clear();
        if (code === 0 && !deadline.timedOut) resolve();
        else reject(new GitCommandFailure(subcommand, code, deadline.timedOut, scrubSecrets(stderr, secrets)));
      });
    });
    // The caller may never attach a handler when it bails out first; the failure is still reported through `done`.
    done.catch(() => undefined);
    return { stdout: child.stdout!, done, stop: () => signalGroup(child, 'SIGKILL') };
  }
}


function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' | ');
}
