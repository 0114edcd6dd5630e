import type { RepoConfig } from '../../config/service-config.js';
import type { FileAdditions } from './added-lines.js';
import type { GitCredential } from './git-credential.js';
import type { TreeMark } from '../../sandbox/tree-entry.js';

/** What a run works on in one repository. */
export interface WorkspaceSource {
  repo: RepoConfig;
  credential: GitCredential;
  /** `service/<ticket>` (workBranchName). */
  workBranch: string;
  /** The host's default branch, or the repository's `branch:` key. */
  baseBranch: string;
}

/** A tree put into a sandbox, and where it came from. */
export interface PreparedTree {
  readonly source: WorkspaceSource;
  /** The branch the tree was taken from: the work branch when resumed, else the base branch. */
  readonly startBranch: string;
  /** Started from the work branch, which the remote already had. */
  readonly resumed: boolean;
  /** The commit the tree is; the parent of the run's commit. */
  readonly commit: string;
  /** The sandbox's mark of its tree right after the commit was put in (`Sandbox.markTree`), where the backend can mark. */
  readonly mark?: TreeMark;
}

export type ChangedFileStatus = 'added' | 'modified' | 'deleted' | 'type-changed';

export interface ChangedFile {
  /** Relative to the repository root, `/`-separated. */
  path: string;
  status: ChangedFileStatus;
}

/** A file of a staged change as the server holds it (never read back from the sandbox). */
export interface StagedFile {
  path: string;
  /** git's mode: `100644`, `100755` (files), `120000` (a symbolic link: `content` is its target). */
  mode: string;
  content: Buffer;
}

/** A regular file's mode (not a symbolic link, not a submodule). */
export function isRegularFileMode(mode: string): boolean {
  return mode === '100644' || mode === '100755';
}

/** A sandbox's changes staged on the server, ready to be scanned, committed and pushed. */
export interface StagedChange {
  readonly prepared: PreparedTree;
  readonly files: readonly ChangedFile[];
  /** The commit made by `commit()`, null before. */
  readonly commitSha: string | null;
  /** The lines the staged diff adds (`git diff --cached --text -U0`), file by file, for the secret scan. */
  addedLines(): AsyncGenerator<FileAdditions>;
}

export interface CommitDetails {
  /** The whole message, trailers included (`Run-Id: …`). */
  message: string;
  authorName: string;
  authorEmail: string;
}
