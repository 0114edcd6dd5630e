/** Where a repository keeps its contexts (contract "Contexts and the bootstrap gate"). */
export const CONTEXTS_DIR = '.service/contexts';

/** The two files every context folder holds. */
export const ContextFile = { ContextYaml: 'context.yaml', Principles: 'principles.md' } as const;
export type ContextFile = (typeof ContextFile)[keyof typeof ContextFile];
export const CONTEXT_FILES: readonly ContextFile[] = [ContextFile.ContextYaml, ContextFile.Principles];

/** The context project initialisation creates in a repository that has none. */
export const DEFAULT_CONTEXT_NAME = 'default';

/** `.service/contexts/<context>/<file>`, relative to the repository root. */
export function contextFilePath(context: string, file: ContextFile): string {
  return `${CONTEXTS_DIR}/${context}/${file}`;
}

/** One context of a repository, read from its tree and parsed (what the model and the gate use). */
export interface RepositoryContext {
  /** The repository's configured name (null for the sandbox of a project without repositories). */
  repo: string | null;
  /** The folder's name (`context.yaml`'s `name` when it differs is reported in `notes`). */
  name: string;
  /** The part of the repository the context covers, `.` for all. */
  path: string;
  description: string;
  /** Toolchain image for container sandboxes; null when not set. */
  image: string | null;
  setup: string[];
  build: string[];
  test: string[];
  /** The files' text as read (cut at the reader's size bound). */
  contextYaml: string;
  principles: string;
  /** What was tolerated: unknown keys, a differing `name`, a file cut at the size bound. */
  notes: string[];
}
