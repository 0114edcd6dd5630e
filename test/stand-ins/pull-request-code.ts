import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitFiles, createBareRepository, git, type FileSpec } from './git-repositories.js';

/**
 * The code behind the code-host stand-ins' pull requests, from a real git repository: the bare
 * repository the test mounted (`mountGit`), or a scratch one built from files the test gives.
 * Diffs are `git diff -M <merge base> <head>`, as the hosts show a pull request's changes; the
 * refs are resolved on every read, so a push to the head branch moves the pull request.
 */

/** Where a pull request's two sides are, in `repository`. */
export interface PullRequestCode {
  repository: string;
  baseRef: string;
  headRef: string;
}

export interface StandInChangedFile {
  path: string;
  previousPath: string | null;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  binary: boolean;
  /** Hunks only (from the first `@@`), null for a binary file. */
  patch: string | null;
  additions: number;
  deletions: number;
}

/** How a test describes a pull request it sets up on a code-host stand-in (`openPullRequest`). */
export interface PullRequestSetup {
  head: string;
  base?: string;
  title?: string;
  /** The account that opened it; default someone other than the service. */
  author?: string;
  /** Files instead of a mounted repository: the base tree, then the head's changes on top (null deletes). */
  files?: { base: Record<string, FileSpec>; head: Record<string, FileSpec> };
  /**
   * The head is a fork's branch: `repository` is the fork's bare repository, whose `head` branch
   * is fetched into the base repository under the host's pull request ref, as the hosts do.
   */
  fork?: { repository: string; owner: string };
}

export const ZERO_SHA = '0'.repeat(40);

export class PullRequestCodeStore {
  /** The mounted bare repository (set by `mountGit`), or null. */
  repository: string | null = null;
  private scratch: string | null = null;
  private scratchCount = 0;

  /**
   * Where the pull request's code is: branches of the mounted repository (a fork's head fetched
   * into `pullRef` first), or scratch branches committed from `setup.files`; null without either.
   */
  codeFor(setup: PullRequestSetup, base: string, pullRef: string): PullRequestCode | null {
    if (setup.files) {
      const repository = this.scratchRepository();
      const name = `pull-${++this.scratchCount}`;
      commitFiles(repository, `${name}-base`, setup.files.base, 'Base');
      commitFiles(repository, `${name}-head`, setup.files.head, 'Change', `${name}-base`);
      return { repository, baseRef: `refs/heads/${name}-base`, headRef: `refs/heads/${name}-head` };
    }
    if (!this.repository) return null;
    if (setup.fork) git(['fetch', '--quiet', setup.fork.repository, `+refs/heads/${setup.head}:${pullRef}`], { cwd: this.repository });
    else git(['update-ref', pullRef, `refs/heads/${setup.head}`], { cwd: this.repository });
    return { repository: this.repository, baseRef: `refs/heads/${base}`, headRef: setup.fork ? pullRef : `refs/heads/${setup.head}` };
  }

  cleanup(): void {
    if (this.scratch) rmSync(this.scratch, { recursive: true, force: true });
    this.scratch = null;
  }

  private scratchRepository(): string {
    if (!this.scratch) {
      this.scratch = mkdtempSync(join(tmpdir(), 'pull-request-code-'));
      createBareRepository(join(this.scratch, 'code.git'));
    }
    return join(this.scratch, 'code.git');
  }
}

/** The commit a side points at; all zeros without code or when the ref is gone. */
export function shaOf(code: PullRequestCode | null, side: 'base' | 'head'): string {
  if (!code) return ZERO_SHA;
  try {
    return git(['rev-parse', '--verify', '--quiet', `${side === 'base' ? code.baseRef : code.headRef}^{commit}`], { cwd: code.repository });
  } catch {
    return ZERO_SHA;
  }
}

/** The merge base of the two sides: what the hosts diff the head against. */
export function mergeBaseOf(code: PullRequestCode): string {
  return git(['merge-base', shaOf(code, 'base'), shaOf(code, 'head')], { cwd: code.repository });
}

/** The pull request's changed files, as `git diff -M` between the merge base and the head sees them. */
export function changedFiles(code: PullRequestCode | null): StandInChangedFile[] {
  if (!code || shaOf(code, 'base') === ZERO_SHA || shaOf(code, 'head') === ZERO_SHA) return [];
  const from = mergeBaseOf(code);
  const to = shaOf(code, 'head');
  const fields = git(['diff', '--name-status', '-M', '-z', from, to], { cwd: code.repository }).split('\0').filter((f) => f !== '');
  // One diff for all files; its per-file sections come in the order of the name-status list.
  const sections = gitText(['diff', '-M', '--no-color', '-U3', from, to], code.repository).split(/^diff --git /m).slice(1);
  const files: StandInChangedFile[] = [];
  for (let i = 0; i < fields.length; ) {
    const kind = fields[i++]!;
    const paths = kind.startsWith('R') || kind.startsWith('C') ? [fields[i++]!, fields[i++]!] : [fields[i++]!];
    const path = paths.at(-1)!;
    const status = kind.startsWith('R') ? 'renamed' : kind === 'A' || kind.startsWith('C') ? 'added' : kind === 'D' ? 'deleted' : 'modified';
    const text = sections[files.length] ?? '';
    const binary = /^Binary files .* differ$/m.test(text);
    const hunkStart = text.search(/^@@ /m);
    const patch = binary || hunkStart < 0 ? null : text.slice(hunkStart).replace(/\n$/, '');
    const lines = patch?.split('\n') ?? [];
    files.push({
      path,
      previousPath: status === 'renamed' ? paths[0]! : null,
      status,
      binary,
      patch,
      additions: lines.filter((l) => l.startsWith('+')).length,
      deletions: lines.filter((l) => l.startsWith('-')).length,
    });
  }
  return files;
}

/** Untrimmed output (a patch's trailing spaces matter). */
function gitText(args: string[], cwd: string): string {
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C' };
  return execFileSync('git', args, { cwd, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
}

/** A file's bytes at a commit, or null when the commit has no such file. */
export function fileBytes(repository: string, commit: string, path: string): Buffer | null {
  try {
    return execFileSync('git', ['cat-file', 'blob', `${commit}:${path}`], { cwd: repository, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/** New-side lines a patch's hunks show (context and added): where a host lets a comment sit. */
export function shownLines(patch: string | null): Set<number> {
  const shown = new Set<number>();
  let line = 0;
  for (const text of (patch ?? '').split('\n')) {
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(text);
    if (header) line = Number(header[1]);
    else if (text.startsWith('+') || text.startsWith(' ')) shown.add(line++);
  }
  return shown;
}

/** New-side lines a patch adds. */
export function addedLines(patch: string | null): number[] {
  const added: number[] = [];
  let line = 0;
  for (const text of (patch ?? '').split('\n')) {
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(text);
    if (header) line = Number(header[1]);
    else if (text.startsWith('+')) added.push(line++);
    else if (text.startsWith(' ')) line++;
  }
  return added;
}
