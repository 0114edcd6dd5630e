import type { ProjectConfig, RepoConfig } from '../../config/service-config.js';
import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import type { MissingContextFiles } from '../contexts/missing-context-files.js';

/** A repository's tree in a sandbox, where a writer adds the missing context files. */
export interface ContextWriterTree {
  repo: RepoConfig;
  sandbox: Sandbox;
}

/** What a writer did, for the pull request's body. */
export interface WrittenContextFiles {
  /** Repository paths written (each one of the missing files). */
  files: string[];
  /** One or two sentences on how they were written (Markdown), e.g. "Derived from package.json …". */
  how: string;
}

/**
 * Writes the missing context files into the tree (project initialisation). It must write every
 * file of `missing` and nothing else: the caller checks the tree afterwards, drops any change to
 * another path (an existing file, anything outside the missing files; the files it did add are
 * kept and the rest comes from the template) and refuses a change that leaves a file unwritten
 * with nothing else to drop. Files are written into the sandbox (for example with
 * `writeSandboxFiles`); the server collects, scans and commits them.
 */
export interface ContextWriter {
  /** Names the writer in results and logs (`template`, `agent`). */
  readonly kind: string;
  write(tree: ContextWriterTree, missing: MissingContextFiles): Promise<WrittenContextFiles>;
}

/** Picks the writer of a project (the template writer now; an agent writer when the project has a model). */
export interface ContextWriters {
  forProject(project: ProjectConfig): ContextWriter;
}

/** Injection token of the server's ContextWriters. */
export const CONTEXT_WRITERS = Symbol('CONTEXT_WRITERS');
