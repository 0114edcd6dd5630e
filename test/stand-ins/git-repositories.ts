import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Bare repositories on disk for the git stand-ins: what the remote has, set up and read back with
 * the real git CLI (isolated from the machine's git configuration).
 */

/** A file's content, an executable file, or a symbolic link; null deletes the path. */
export type FileSpec = string | { content: string; executable: true } | { symlink: string } | null;

const ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: tmpdir(),
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Remote Person',
  GIT_AUTHOR_EMAIL: 'remote@example.test',
  GIT_COMMITTER_NAME: 'Remote Person',
  GIT_COMMITTER_EMAIL: 'remote@example.test',
};

export function git(args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): string {
  return execFileSync('git', args, { cwd: options.cwd, input: options.input, env: { ...ENV, ...options.env }, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] }).trim();
}

/** A bare repository at `path` with one commit of `files` on `defaultBranch` (its HEAD). Answers the commit. */
export function createBareRepository(path: string, options: { defaultBranch?: string; files?: Record<string, FileSpec> } = {}): string {
  const branch = options.defaultBranch ?? 'main';
  mkdirSync(dirname(path), { recursive: true });
  git(['init', '--quiet', '--bare', `--initial-branch=${branch}`, path]);
  return commitFiles(path, branch, options.files ?? { 'README.md': '# demo\n' }, 'Initial commit');
}

/**
 * A commit on `branch` of the bare repository applying `files` (created from `from`, default the
 * branch itself, when the branch is new). Answers the commit.
 */
export function commitFiles(bare: string, branch: string, files: Record<string, FileSpec>, message = 'Remote change', from?: string): string {
  const work = mkdtempSync(join(tmpdir(), 'git-stand-in-work-'));
  try {
    git(['init', '--quiet', work]);
    const start = from ?? (branchTip(bare, branch) ? branch : null);
    if (start) {
      git(['fetch', '--quiet', bare, `${start}`], { cwd: work });
      git(['checkout', '--quiet', '-B', 'work', 'FETCH_HEAD'], { cwd: work });
    } else git(['checkout', '--quiet', '-b', 'work'], { cwd: work });
    for (const [path, spec] of Object.entries(files)) writeSpec(join(work, path), spec);
    git(['add', '--all'], { cwd: work });
    git(['commit', '--quiet', '--allow-empty', '-m', message], { cwd: work });
    git(['push', '--quiet', '--force', bare, `HEAD:refs/heads/${branch}`], { cwd: work });
    return git(['rev-parse', 'HEAD'], { cwd: work });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function writeSpec(target: string, spec: FileSpec): void {
  rmSync(target, { recursive: true, force: true });
  if (spec === null) return;
  mkdirSync(dirname(target), { recursive: true });
  if (typeof spec === 'string') writeFileSync(target, spec);
  else if ('symlink' in spec) symlinkSync(spec.symlink, target);
  else {
    writeFileSync(target, spec.content);
    chmodSync(target, 0o755);
  }
}

/** The branch's commit, or null when the repository has no such branch. */
export function branchTip(bare: string, branch: string): string | null {
  try {
    return git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: bare });
  } catch {
    return null;
  }
}

export function setBranchTip(bare: string, branch: string, sha: string): void {
  git(['update-ref', `refs/heads/${branch}`, sha], { cwd: bare });
}

/** Pushes to the branch are declined by a pre-receive hook, as a host's branch protection does. */
export function protectBranch(bare: string, branch: string): void {
  const hook = join(bare, 'hooks', 'pre-receive');
  mkdirSync(dirname(hook), { recursive: true });
  writeFileSync(
    hook,
    `#!/bin/sh\nwhile read old new ref; do\n  if [ "$ref" = "refs/heads/${branch}" ]; then\n    echo "error: GH006: Protected branch update failed for $ref." >&2\n    exit 1\n  fi\ndone\nexit 0\n`,
  );
  chmodSync(hook, 0o755);
}

/** `git log -1 --format=<format> <ref>` in the bare repository. */
export function show(bare: string, ref: string, format: string): string {
  return git(['log', '-1', `--format=${format}`, ref], { cwd: bare });
}

/** `git ls-tree -r <ref>` as path → `<mode> <type>`. */
export function treeOf(bare: string, ref: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of git(['ls-tree', '-r', ref], { cwd: bare }).split('\n').filter(Boolean)) {
    const [meta, path] = line.split('\t');
    const [mode, type] = meta!.split(' ');
    entries.set(path!, `${mode} ${type}`);
  }
  return entries;
}

/** The content of `path` at `ref`. */
export function fileAt(bare: string, ref: string, path: string): string {
  return execFileSync('git', ['show', `${ref}:${path}`], { cwd: bare, env: ENV, encoding: 'utf8' });
}
