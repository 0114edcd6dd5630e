import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../paths.js';

/**
 * The system prompt of each pipeline is a Markdown file in the repository, `prompts/<pipeline>.md`
 * at the package root, so that it is reviewed like code, changed without touching TypeScript,
 * and shipped beside `dist/` (the Dockerfile copies `prompts/`).
 */
export const PROMPTS_DIR = join(PACKAGE_ROOT, 'prompts');

/** A pipeline name as the file name uses it; anything else could walk out of the folder. */
const PIPELINE_NAME = /^[a-z][a-z0-9-]{0,63}$/;

export class SystemPromptError extends Error {
  override readonly name = 'SystemPromptError';
}

/**
 * A loader reading `<dir>/<pipeline>.md`, each file once per process: prompts do not change
 * while the server runs, and every run of a pipeline asks for the same one. A failed read is not
 * cached, so a file put in place later is found.
 */
export function systemPromptLoader(dir: string): (pipeline: string) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  return (pipeline) => {
    const cached = cache.get(pipeline);
    if (cached) return cached;
    const loading = load(dir, pipeline);
    cache.set(pipeline, loading);
    loading.catch(() => cache.delete(pipeline));
    return loading;
  };
}

async function load(dir: string, pipeline: string): Promise<string> {
  if (!PIPELINE_NAME.test(pipeline)) throw new SystemPromptError(`not a pipeline name: ${JSON.stringify(pipeline.slice(0, 80))}`);
  const file = join(dir, `${pipeline}.md`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(err as Error).message})`;
    throw new SystemPromptError(`no system prompt for pipeline "${pipeline}": ${file} ${reason}; the prompts/ folder ships with the package`);
  }
  if (text.trim() === '') throw new SystemPromptError(`the system prompt for pipeline "${pipeline}" is empty: ${file}`);
  return text.trim();
}

/** The system prompt of `pipeline` (`code`, `pr-review`, `security-scan`, `init`) from the package's `prompts/`. */
export const systemPromptFor: (pipeline: string) => Promise<string> = systemPromptLoader(PROMPTS_DIR);
