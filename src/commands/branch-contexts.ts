import { CONTEXTS_DIR, CONTEXT_FILES, type ContextFile, DEFAULT_CONTEXT_NAME } from '../pipelines/contexts/context-files.js';

/** A context folder on a branch that lacks files (spec rule 5 names each context and file). */
export interface MissingOnBranch {
  context: string;
  files: ContextFile[];
}

/**
 * What the contexts on a branch lack, from the paths under `.service/contexts` (git ls-tree):
 * with no context folder at all, the `default` context initialisation would add; else each
 * folder's missing `context.yaml` / `principles.md`.
 */
export function missingOnBranch(paths: readonly string[]): MissingOnBranch[] {
  const folders = new Map<string, Set<string>>();
  for (const path of paths) {
    if (!path.startsWith(`${CONTEXTS_DIR}/`)) continue;
    const [context, ...rest] = path.slice(CONTEXTS_DIR.length + 1).split('/');
    if (!context) continue;
    const files = folders.get(context) ?? new Set<string>();
    if (rest.length === 1) files.add(rest[0]!);
    folders.set(context, files);
  }
  if (folders.size === 0) return [{ context: DEFAULT_CONTEXT_NAME, files: [...CONTEXT_FILES] }];
  return [...folders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([context, files]) => ({ context, files: CONTEXT_FILES.filter((f) => !files.has(f)) }))
    .filter((m) => m.files.length > 0);
}
