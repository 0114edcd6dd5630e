import { parseDocument } from 'yaml';
import { ContextFile, type ContextSettings, contextFilePath } from './context-files.js';

export type { ContextSettings };

/** The keys of `context.yaml` (contract "Contexts and the bootstrap gate"). */
export const CONTEXT_YAML_KEYS = ['name', 'path', 'description', 'image', 'setup', 'build', 'test'] as const;


/** A context file that cannot be used: names the repository, the context, the file and (when one is at fault) the key. */
export class ContextError extends Error {
  constructor(
    readonly repo: string | null,
    readonly context: string,
    readonly file: ContextFile,
    readonly key: string | null,
    /** What is wrong, without the place (the message adds it). */
    readonly problem: string,
  ) {
    super(`${repo === null ? '' : `repository ${repo}: `}${contextFilePath(context, file)}${key === null ? '' : ` key ${key}`}: ${problem}`);
    this.name = 'ContextError';
  }
}

/**
 * Parses a context's `context.yaml`. Missing keys take their defaults (`name` the folder's name,
 * `path` `.`, `description` empty, `image` none, the command lists empty); unknown keys are
 * tolerated and noted. Bad YAML, a document that is not a mapping, or a key of the wrong type
 * throws a ContextError naming the repository, the context and the key.
 */
export function parseContextYaml(repo: string | null, context: string, text: string): ContextSettings {
  const fail = (key: string | null, problem: string) => new ContextError(repo, context, ContextFile.ContextYaml, key, problem);
  const doc = parseDocument(text, { uniqueKeys: true });
  const error = doc.errors[0];
  // The parser's first line says what and where (`… at line 2, column 1:`); the excerpt after it is left out.
  if (error) throw fail(null, `is not valid YAML: ${(error.message.split('\n')[0] ?? '').replace(/:$/, '')}`);
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return defaults(context, []);
  if (typeof value !== 'object' || Array.isArray(value)) throw fail(null, 'must be a mapping of the keys name, path, description, image, setup, build and test');
  const map = value as Record<string, unknown>;
  const text_ = (key: string, fallback: string): string => {
    const v = map[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw fail(key, `must be a text, not ${kindOf(v)}`);
  };
  const commands = (key: string): string[] => {
    const v = map[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw fail(key, `must be a list of shell commands, not ${kindOf(v)}`);
    return v.map((item, index) => {
      if (typeof item === 'string') return item;
      throw fail(`${key}[${index}]`, `must be a shell command (a text), not ${kindOf(item)}`);
    });
  };
  const notes: string[] = [];
  const unknown = Object.keys(map).filter((k) => !(CONTEXT_YAML_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) notes.push(`${contextFilePath(context, ContextFile.ContextYaml)}: unknown key(s) ${unknown.join(', ')} ignored`);
  const name = text_('name', context);
  if (name !== context) notes.push(`${contextFilePath(context, ContextFile.ContextYaml)}: name "${name}" differs from the folder's; the context is called ${context}`);
  const path = text_('path', '.').trim() || '.';
  const image = text_('image', '').trim();
  return {
    name: context, path, description: text_('description', ''), image: image.length > 0 ? image : null,
    setup: commands('setup'), build: commands('build'), test: commands('test'), notes,
  };
}

function defaults(context: string, notes: string[]): ContextSettings {
  return { name: context, path: '.', description: '', image: null, setup: [], build: [], test: [], notes };
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}
