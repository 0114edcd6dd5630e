import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SandboxBackendKind } from '../config/service-config.js';
import type { ProbeResult, SandboxBackend } from './sandbox-backend.js';

const run = promisify(execFile);

/** Runs each sandbox as child processes in a fresh working directory on this host. */
export class InProcessBackend implements SandboxBackend {
  readonly kind = SandboxBackendKind.InProcess;

  /** Answers when it can make a working directory and start a shell in it. */
  async probe(): Promise<ProbeResult> {
    let dir: string | null = null;
    try {
      dir = await mkdtemp(join(tmpdir(), 'pipeline-service-probe-'));
      await run('/bin/sh', ['-c', 'exit 0'], { cwd: dir, timeout: 5000 });
      return { ok: true, detail: 'in-process backend can create a working directory and start /bin/sh' };
    } catch (error) {
      return { ok: false, reason: `in-process backend cannot start a shell: ${(error as Error).message}`, fixHint: 'make /bin/sh and the temp directory available to the server user' };
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }
}
