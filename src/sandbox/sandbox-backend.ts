import type { Readable } from 'node:stream';
import type { SandboxBackendKind } from './sandbox-backends.js';
import type { TreeEntry, TreeMark } from './tree-entry.js';

export type ProbeResult = { ok: true; detail: string } | { ok: false; reason: string; fixHint: string };

/** What the backend's own API says it is (the diagnostics' probe), and where that API is. */
export interface BackendVersion {
  version: string;
  /** The engine's or cluster's address; null for the in-process backend. */
  target: string | null;
}

export const OutputStream = { Stdout: 'stdout', Stderr: 'stderr' } as const;
export type OutputStream = (typeof OutputStream)[keyof typeof OutputStream];

/** What a sandbox is created for. */
export interface SandboxSpec {
  runId: string;
  /** The repository the sandbox serves (or `default` for a project without repositories). */
  name: string;
  /** The run's environment: the only variables its commands see (besides PATH, HOME, LANG). */
  env: Readonly<Record<string, string>>;
  /** The toolchain image (container backends): a context's `image`, else `sandbox.image`. */
  image?: string;
}

/** Labels every container or pod of a sandbox carries (contract: "Container sandboxes"). */
export const SandboxLabel = {
  RunId: 'pipeline-service/run-id',
  Sandbox: 'pipeline-service/sandbox',
  Instance: 'pipeline-service/instance',
} as const;

export interface ExecOptions {
  timeoutMs: number;
  /** Extra variables for this command only. */
  env?: Readonly<Record<string, string>>;
  /** Called for every output line, as it arrives. */
  onLine(stream: OutputStream, line: string): void;
  /**
   * Ends the command early (the agent's cancel): its processes are killed as on a timeout and
   * the result comes back with whatever exit it had. Optional for a backend: a caller that must
   * return promptly does not wait for the result once it fires.
   */
  signal?: AbortSignal;
}

export interface ExecResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

/**
 * One live sandbox: a fresh working directory commands run in until it is destroyed. It may be a
 * directory on this host, a container or a pod: trees move in and out only as tar streams (the
 * shape of the Docker Engine's archive endpoints) or, out only, as the entries such a stream
 * holds (`readTree`); never by the caller touching its files directly.
 */
export interface Sandbox {
  readonly name: string;
  /** Where commands start, as the sandbox sees it (not necessarily a path on the server's host). */
  readonly workdir: string;
  exec(command: string, options: ExecOptions): Promise<ExecResult>;
  /**
   * Unpacks a tar stream into the working directory (files, directories, symbolic links, the
   * executable bit). Entries that would land outside it (absolute, `..`, through a link) are refused.
   */
  putArchive(tar: Readable): Promise<void>;
  /** The working directory's whole tree as a tar stream, paths relative to it. */
  getArchive(): Promise<Readable>;
  /**
   * The same tree as `getArchive()`, in the same order, as entries instead of a tar stream, for a
   * backend that would otherwise encode an archive in this process only for the caller to decode
   * it: the in-process backend reads its directory, the container engine reads the engine's own
   * archive without re-rooting it into a second one.
   */
  readTree?(since?: TreeMark): AsyncIterable<TreeEntry>;
  /**
   * Notes every file now in the tree, for a backend that can later tell, without reading a file,
   * that it is still the one noted (in-process: by inode, size and times). `readTree(mark)` then
   * flags such files (`TreeEntry.asMarked`) instead of reading them. Taken right after the
   * prepared commit is put in, it lets collect skip reading and hashing every unchanged file.
   */
  markTree?(): Promise<TreeMark>;
  /** Removes the sandbox and everything in it; safe to call twice. */
  destroy(): Promise<void>;
}

/** A place runs execute in. Each backend answers `probe()` so the server can tell if it works. */
export interface SandboxBackend {
  readonly kind: SandboxBackendKind;
  probe(): Promise<ProbeResult>;
  /**
   * One read-only round trip to the backend's API (the engine's version, the cluster's
   * `/version`; in-process: none). Throws when it cannot answer. Creates nothing, unlike `probe()`.
   */
  version(): Promise<BackendVersion>;
  create(spec: SandboxSpec): Promise<Sandbox>;
  /**
   * Removes the sandboxes (containers, pods) of runs that are no longer live, whichever process
   * created them (one killed mid-run): the housekeeping leader calls it. Answers how many went.
   * Backends whose sandboxes cannot outlive their process (in-process) leave it out.
   */
  sweep?(isLive: (runId: string) => Promise<boolean>): Promise<number>;
}
