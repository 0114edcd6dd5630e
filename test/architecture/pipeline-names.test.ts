import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PIPELINES } from '../../src/pipelines/built-in-pipelines.js';

/**
 * Issue 28 for pipelines, as platform-names.test.ts holds it for platforms and backends: outside
 * `src/pipelines/` no code compares a built-in pipeline's name; it asks the catalog's traits
 * (`builtInTraitsOf`, `builtInHas`, `builtInsWith` in `src/pipelines/built-in-pipelines.ts`) or
 * takes one of its constants. A name is `BuiltInPipeline.X`, or a built-in's name quoted on a line
 * that speaks of a pipeline (`pipeline === 'code'`, `default_pipeline ?? 'code'`): the word
 * `code` alone is too common (an HTML tag, a toolset) to be read as the pipeline's name.
 */
const SRC = join(import.meta.dirname, '../../src');

const PIPELINE_NAME = new RegExp(`\\bBuiltInPipeline\\.[A-Z]\\w*|pipeline\\w*\\b[^'\\n]*'(${BUILT_IN_PIPELINES.join('|')})'`, 'gi');

/** Still naming a built-in (file → references); the list may only shrink. */
const PIPELINE_NAMES_LEFT: Record<string, number> = {};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

function offenders(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const path of sources(SRC)) {
    const file = relative(SRC, path).split('\\').join('/');
    if (file.startsWith('pipelines/')) continue;
    readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
      for (const _ of line.matchAll(PIPELINE_NAME)) out.set(file, [...(out.get(file) ?? []), `${file}:${i + 1}: ${line.trim()}`]);
    });
  }
  return out;
}

function grown(found: Map<string, string[]>): string[] {
  return [...found].filter(([file, lines]) => lines.length > (PIPELINE_NAMES_LEFT[file] ?? 0)).flatMap(([, lines]) => lines);
}

describe('built-in pipeline names stay in src/pipelines/', () => {
  it('no code outside src/pipelines/ names a built-in pipeline, beyond the files still listed', () => {
    expect(grown(offenders())).toEqual([]);
  });

  it('the list only shrinks: a migrated file is taken off it', () => {
    const found = offenders();
    expect(Object.entries(PIPELINE_NAMES_LEFT).filter(([file, n]) => (found.get(file)?.length ?? 0) < n).map(([file]) => file)).toEqual([]);
  });

  it('catches a name where it does not belong (the check can fail)', () => {
    expect('if (run.pipeline === BuiltInPipeline.Code)'.match(PIPELINE_NAME)).toHaveLength(1);
    expect("const pipeline = row.pipeline ?? 'code';".match(PIPELINE_NAME)).toHaveLength(1);
    expect("if (request.pipeline === 'pr-review')".match(PIPELINE_NAME)).toHaveLength(1);
    expect("const CODE = new Set(['pre', 'code']);".match(PIPELINE_NAME)).toBeNull();
    expect(grown(new Map([['webhooks/x.ts', ['webhooks/x.ts:1: pipeline: BuiltInPipeline.SecurityScan']]]))).toHaveLength(1);
  });
});
