import { CONTEXTS_DIR, CONTEXT_FILES, type ContextFile, DEFAULT_CONTEXT_NAME, contextFilePath } from './context-files.js';
import type { ContextScan } from './context-reader.js';

/** One context that lacks files. */
export interface MissingContext {
  name: string;
  /** The files to add (never one that exists). */
  files: ContextFile[];
  /** The text of the context's files that exist (a writer may build on them). */
  existing: Partial<Record<ContextFile, string>>;
}

/** What a repository's tree lacks for the gate: nothing (`contexts` empty) means complete. */
export interface MissingContextFiles {
  repo: string;
  contexts: MissingContext[];
}

/** The contexts folder is something initialisation cannot add to (a file, a symbolic link). */
export class ContextsRootError extends Error {}

/**
 * What a repository lacks: the `default` context whole when it has none, else each context's
 * missing files. A file that is present in any form (even unusable) is never listed: it is
 * not initialisation's to replace.
 */
export function missingContextFiles(repo: string, scan: ContextScan): MissingContextFiles {
  if (scan.root === 'link' || scan.root === 'not-a-directory') {
    throw new ContextsRootError(`repository ${repo}: ${CONTEXTS_DIR} ${scan.root === 'link' ? 'is (or lies under) a symbolic link' : 'is not a directory'}; initialisation does not replace it: fix it in the repository`);
  }
  if (scan.folders.length === 0) return { repo, contexts: [{ name: DEFAULT_CONTEXT_NAME, files: [...CONTEXT_FILES], existing: {} }] };
  const contexts: MissingContext[] = [];
  for (const folder of scan.folders) {
    if (folder.link) continue;
    const files = CONTEXT_FILES.filter((f) => folder.files[f].state === 'missing');
    if (files.length === 0) continue;
    const existing: Partial<Record<ContextFile, string>> = {};
    for (const f of CONTEXT_FILES) {
      const read = folder.files[f];
      if (read.state === 'file') existing[f] = read.text;
    }
    contexts.push({ name: folder.name, files, existing });
  }
  return { repo, contexts };
}

/** `missing` without the files `tree` already has (a resumed init branch may carry some). */
export function stillMissingIn(missing: MissingContextFiles, tree: ContextScan): MissingContextFiles {
  const contexts: MissingContext[] = [];
  for (const context of missing.contexts) {
    const folder = tree.folders.find((f) => f.name === context.name);
    const files = context.files.filter((f) => !folder || folder.files[f].state === 'missing');
    if (files.length === 0 || folder?.link) continue;
    const existing = { ...context.existing };
    for (const f of CONTEXT_FILES) {
      const read = folder?.files[f];
      if (read?.state === 'file') existing[f] = read.text;
    }
    contexts.push({ name: context.name, files, existing });
  }
  return { repo: missing.repo, contexts };
}

/** The repository paths of the missing files, in order. */
export function missingPaths(missing: MissingContextFiles): string[] {
  return missing.contexts.flatMap((c) => c.files.map((f) => contextFilePath(c.name, f)));
}

