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

/** What `context.yaml` says, defaults filled in. */
export interface ContextSettings {
  name: string;
  path: string;
  description: string;
  image: string | null;
  setup: string[];
  build: string[];
  test: string[];
  /** Tolerated oddities: unknown keys, a `name` that differs from the folder's (and, once read, a file cut at the size bound). */
  notes: string[];
}

/** One context of a repository, read from its tree and parsed (what the model and the gate use). */
export interface RepositoryContext extends ContextSettings {
  /** The repository's configured name (null for the sandbox of a project without repositories). */
  repo: string | null;
  /** The files' text as read (cut at the reader's size bound). */
  contextYaml: string;
  principles: string;
}
