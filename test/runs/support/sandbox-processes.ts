import { readdirSync, readlinkSync } from 'node:fs';

/**
 * Live processes running in a sandbox of `runId`: the in-process backend's sandbox directory
 * names the run (`pipeline-service-<first 8 characters>-…`, the workdir is inside it), and
 * /proc/<pid>/cwd points into it.
 */
export function sandboxProcessesOf(runId: string): string[] {
  const marker = `pipeline-service-${runId.slice(0, 8)}-`;
  return readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/cwd`).includes(marker);
    } catch {
      return false; // gone, or not ours to read
    }
  });
}
