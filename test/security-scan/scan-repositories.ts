import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommittedTree } from '../../src/pipelines/pipeline.js';
import { GitCli } from '../../src/workspaces/git/git-command.js';

/**
 * Real bare repositories for the scanner tests, written with `git fast-import` (hundreds of commits
 * in well under a second), and the server's read-only view of one (`CommittedTree`) through the
 * same GitCli the workspaces use, with GIT_DIR set and no work tree.
 */

/** A commit's changes: path → content (string or bytes), or null to delete the path. */
export type CommitSpec = Record<string, string | Buffer | null>;

const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: tmpdir(), LANG: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/** A bare repository whose branch `main` has `commits` in order (oldest first). Answers each commit's sha. */
export function createScanRepository(path: string, commits: readonly CommitSpec[]): string[] {
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', path], { env: ENV });
  const parts: Buffer[] = [];
  commits.forEach((files, i) => {
    const message = `change ${i}\n`;
    parts.push(Buffer.from(`commit refs/heads/main\nmark :${i + 1}\ncommitter Scan Test <scan@example.test> ${1_700_000_000 + i * 60} +0000\ndata ${Buffer.byteLength(message)}\n${message}`));
    for (const [file, content] of Object.entries(files)) {
      if (content === null) {
        parts.push(Buffer.from(`D ${file}\n`));
        continue;
      }
      const data = typeof content === 'string' ? Buffer.from(content) : content;
      parts.push(Buffer.from(`M 100644 inline ${file}\ndata ${data.length}\n`), data, Buffer.from('\n'));
    }
    parts.push(Buffer.from('\n'));
  });
  execFileSync('git', ['fast-import', '--quiet'], { env: { ...ENV, GIT_DIR: path }, input: Buffer.concat(parts) });
  return execFileSync('git', ['rev-list', '--reverse', 'main'], { env: { ...ENV, GIT_DIR: path }, encoding: 'utf8' }).trim().split('\n');
}

/** The server's read-only view of `commit` in the bare repository `bare`. */
export function committedTree(bare: string, commit: string, repo = 'demo'): CommittedTree {
  const cli = new GitCli({ home: tmpdir(), path: ENV.PATH });
  return { repo, commit, git: (args) => cli.stream(args, { timeoutMs: 120_000, variables: { GIT_DIR: bare } }) };
}

/** A temporary directory removed by the returned function. */
export function tempDirectory(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
