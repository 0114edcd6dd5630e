import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import { CONTEXTS_DIR, CONTEXT_FILES, ContextFile, type RepositoryContext, contextFilePath } from './context-files.js';
import { type ContextScan, MAX_CONTEXTS, scanContexts } from './context-reader.js';
import { ContextError, parseContextYaml } from './context-yaml.js';

/** A tree whose contexts are checked: a run's sandbox with its repository (RunSandbox fits). */
export interface ContextTree {
  /** null: the sandbox of a project without repositories (nothing to initialise, so nothing is required). */
  repo: { name: string } | null;
  sandbox: Sandbox;
}

/** Why a tree does not pass the gate. */
export type ContextProblem =
  /** No context folder at all (project initialisation adds `default`). */
  | { kind: 'no-context'; repo: string }
  /** A context folder without one of its two files (project initialisation adds it). */
  | { kind: 'missing-file'; repo: string; context: string; file: ContextFile }
  /** Present but not usable (bad YAML, a wrong type, not a regular file): initialisation never overwrites it, people fix it. */
  | { kind: 'unusable'; repo: string | null; context: string | null; message: string }
  /** The sandbox could not be read. */
  | { kind: 'unreadable'; repo: string | null; message: string };

export type GateResult =
  | { ok: true; contexts: RepositoryContext[]; notes: string[] }
  | {
      ok: false;
      /** One line: the run's error and the ticket's failure comment. */
      error: string;
      /** One line per problem and the repair, for the run's events. */
      details: string[];
      problems: ContextProblem[];
    };

/**
 * A tree's contexts from its scan: every complete, parseable context, and what keeps the others
 * from being used. A repository without any context is a problem; a tree without a repository
 * (null) is never required to have one.
 */
export function contextsFromScan(scan: ContextScan): { contexts: RepositoryContext[]; problems: ContextProblem[]; notes: string[] } {
  const { repo } = scan;
  const contexts: RepositoryContext[] = [];
  const problems: ContextProblem[] = [];
  const notes: string[] = [];
  if (scan.root === 'link' || scan.root === 'not-a-directory') {
    const what = scan.root === 'link' ? 'is (or lies under) a symbolic link' : 'is not a directory';
    problems.push({ kind: 'unusable', repo, context: null, message: `${CONTEXTS_DIR} ${what}` });
    return { contexts, problems, notes };
  }
  if (scan.folders.length === 0) {
    if (repo !== null) problems.push({ kind: 'no-context', repo });
    return { contexts, problems, notes };
  }
  if (scan.cut) notes.push(`only the first ${MAX_CONTEXTS} contexts were read`);
  for (const folder of scan.folders) {
    if (folder.link) {
      problems.push({ kind: 'unusable', repo, context: folder.name, message: `${CONTEXTS_DIR}/${folder.name} is a symbolic link` });
      continue;
    }
    let complete = true;
    for (const file of CONTEXT_FILES) {
      const read = folder.files[file];
      if (read.state === 'missing') {
        complete = false;
        if (repo !== null) problems.push({ kind: 'missing-file', repo, context: folder.name, file });
      } else if (read.state === 'other') {
        complete = false;
        problems.push({ kind: 'unusable', repo, context: folder.name, message: `${contextFilePath(folder.name, file)} is not a regular file` });
      }
    }
    const yaml = folder.files[ContextFile.ContextYaml];
    const principles = folder.files[ContextFile.Principles];
    if (!complete || yaml.state !== 'file' || principles.state !== 'file') continue;
    try {
      const settings = parseContextYaml(repo, folder.name, yaml.text);
      const cut = [yaml, principles].flatMap((f, i) => (f.truncated ? [`${contextFilePath(folder.name, CONTEXT_FILES[i]!)}: only its first ${f.text.length} characters of ${f.size} bytes were read`] : []));
      contexts.push({ repo, ...settings, contextYaml: yaml.text, principles: principles.text, notes: [...settings.notes, ...cut] });
    } catch (error) {
      if (!(error instanceof ContextError)) throw error;
      problems.push({ kind: 'unusable', repo, context: folder.name, message: `${contextFilePath(folder.name, error.file)}${error.key === null ? '' : ` key ${error.key}`}: ${error.problem}` });
    }
  }
  return { contexts, problems, notes };
}

/** One tree's contexts as read from its sandbox, or why they could not be read. */
export type RepositoryContextsRead =
  | { ok: true; repo: string | null; scan: ContextScan }
  | { ok: false; repo: string | null; error: string };

/** Reads one tree's contexts from its sandbox (one exec); never throws: a failure is part of the answer. */
export async function readRepositoryContexts(sandbox: Sandbox, repo: string | null): Promise<RepositoryContextsRead> {
  try {
    return { ok: true, repo, scan: await scanContexts(sandbox, repo) };
  } catch (error) {
    return { ok: false, repo, error: (error as Error).message };
  }
}

/**
 * The bootstrap gate over what was read (contract "Contexts and the bootstrap gate"): every
 * tree's complete contexts, or the failure naming each repository, context and file and that
 * project initialisation repairs what is missing. Without `project` the repair names
 * `<project>` in its commands.
 */
export function contextsGate(reads: readonly RepositoryContextsRead[], options: { project?: string } = {}): GateResult {
  const contexts: RepositoryContext[] = [];
  const problems: ContextProblem[] = [];
  const notes: string[] = [];
  for (const read of reads) {
    const { repo } = read;
    if (!read.ok) {
      problems.push({ kind: 'unreadable', repo, message: read.error });
      continue;
    }
    const found = contextsFromScan(read.scan);
    const where = (n: string) => (repo === null ? n : `repository ${repo}: ${n}`);
    contexts.push(...found.contexts);
    problems.push(...found.problems);
    notes.push(...found.notes.map(where), ...found.contexts.flatMap((c) => c.notes.map(where)));
  }
  if (problems.length === 0) return { ok: true, contexts, notes };
  return { ok: false, ...gateFailure(options.project ?? '<project>', problems), problems };
}

/** Reads every tree (one exec each, in parallel) and applies the gate. */
export async function checkContexts(trees: readonly ContextTree[], options: { project?: string } = {}): Promise<GateResult> {
  const reads = await Promise.all(trees.map(({ repo, sandbox }) => readRepositoryContexts(sandbox, repo?.name ?? null)));
  return contextsGate(reads, options);
}

/** How project initialisation is started, as the failure tells it. */
export function initialisationCommands(project: string): string {
  return `POST /api/projects/${project}/init or \`pipeline-service init --project ${project}\``;
}

/**
 * The gate's failure: one line (`error`) naming each repository and what it lacks, grouped per
 * repository, then the repair; and one line per problem (`details`) for the run's events.
 */
export function gateFailure(project: string, problems: readonly ContextProblem[]): { error: string; details: string[] } {
  const missing = problems.filter((p) => p.kind === 'no-context' || p.kind === 'missing-file');
  const other = problems.filter((p) => p.kind === 'unusable' || p.kind === 'unreadable');
  const parts: string[] = [];
  for (const repo of unique(missing.map((p) => p.repo))) {
    const mine = missing.filter((p) => p.repo === repo);
    if (mine.some((p) => p.kind === 'no-context')) {
      parts.push(`repository ${repo} has no context (${CONTEXTS_DIR}/<name>/ with ${CONTEXT_FILES.join(' and ')})`);
      continue;
    }
    const byContext = unique(mine.map((p) => (p.kind === 'missing-file' ? p.context : '')));
    const lacks = byContext.map((context) => {
      const files = mine.flatMap((p) => (p.kind === 'missing-file' && p.context === context ? [p.file] : []));
      return `context ${context} lacks ${files.join(' and ')}`;
    });
    parts.push(`repository ${repo}: ${lacks.join(', ')}`);
  }
  for (const p of other) parts.push(`${p.repo === null ? '' : `repository ${p.repo}: `}${p.kind === 'unreadable' ? `contexts could not be read: ${p.message}` : p.message}`);
  const repairs: string[] = [];
  if (missing.length > 0) repairs.push(`project initialisation adds the missing files (it never overwrites one): ${initialisationCommands(project)}`);
  if (other.some((p) => p.kind === 'unusable')) repairs.push('fix the unusable file(s) in the repository');
  const error = `bootstrap gate: ${parts.join('; ')} — ${repairs.join('; ')}`;
  const details = [...problems.map((p) => describeProblem(p)), ...repairs];
  return { error, details };
}

function describeProblem(p: ContextProblem): string {
  switch (p.kind) {
    case 'no-context': return `repository ${p.repo}: no context: ${CONTEXTS_DIR}/ has no folder with ${CONTEXT_FILES.join(' and ')}`;
    case 'missing-file': return `repository ${p.repo}: context ${p.context}: ${contextFilePath(p.context, p.file)} is missing`;
    case 'unusable': return `${p.repo === null ? '' : `repository ${p.repo}: `}${p.context === null ? '' : `context ${p.context}: `}${p.message}`;
    case 'unreadable': return `${p.repo === null ? '' : `repository ${p.repo}: `}contexts could not be read: ${p.message}`;
  }
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
