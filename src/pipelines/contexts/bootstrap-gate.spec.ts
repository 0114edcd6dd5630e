import { describe, expect, it } from 'vitest';
import { contextsFromScan, contextsGate, gateFailure } from './bootstrap-gate.js';
import type { ContextScan } from './context-reader.js';
import { ContextError, parseContextYaml } from './context-yaml.js';

const file = (text: string) => ({ state: 'file' as const, text, size: Buffer.byteLength(text), truncated: false });
const missing = { state: 'missing' as const };

describe('the bootstrap gate\'s failure', () => {
  it('is one line naming each repository, context and file, and the repair with both commands', () => {
    const { error, details } = gateFailure('shop', [
      { kind: 'no-context', repo: 'shop-web' },
      { kind: 'missing-file', repo: 'shop-api', context: 'api', file: 'principles.md' },
      { kind: 'missing-file', repo: 'shop-api', context: 'jobs', file: 'context.yaml' },
      { kind: 'missing-file', repo: 'shop-api', context: 'jobs', file: 'principles.md' },
    ]);
    expect(error).toBe(
      'bootstrap gate: repository shop-web has no context (.service/contexts/<name>/ with context.yaml and principles.md); '
      + 'repository shop-api: context api lacks principles.md, context jobs lacks context.yaml and principles.md'
      + ' — project initialisation adds the missing files (it never overwrites one): POST /api/projects/shop/init or `pipeline-service init --project shop`',
    );
    expect(error).not.toContain('\n');
    expect(details).toEqual([
      'repository shop-web: no context: .service/contexts/ has no folder with context.yaml and principles.md',
      'repository shop-api: context api: .service/contexts/api/principles.md is missing',
      'repository shop-api: context jobs: .service/contexts/jobs/context.yaml is missing',
      'repository shop-api: context jobs: .service/contexts/jobs/principles.md is missing',
      'project initialisation adds the missing files (it never overwrites one): POST /api/projects/shop/init or `pipeline-service init --project shop`',
    ]);
  });

  it('tells people to fix what initialisation will not touch', () => {
    const { error } = gateFailure('shop', [
      { kind: 'unusable', repo: 'shop-web', context: 'web', message: '.service/contexts/web/context.yaml key build: must be a list of shell commands, not a string' },
    ]);
    expect(error).toBe('bootstrap gate: repository shop-web: .service/contexts/web/context.yaml key build: must be a list of shell commands, not a string — fix the unusable file(s) in the repository');
  });
});

describe('the gate over what was read', () => {
  it('names <project> in the repair when the caller does not know the project, and an unreadable tree', () => {
    const result = contextsGate([
      { ok: true, repo: 'web', scan: { repo: 'web', root: 'absent', folders: [], cut: false } },
      { ok: false, repo: 'api', error: 'reading the contexts of repository api timed out after 60 s in sandbox api' },
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBe('bootstrap gate: repository web has no context (.service/contexts/<name>/ with context.yaml and principles.md); '
      + 'repository api: contexts could not be read: reading the contexts of repository api timed out after 60 s in sandbox api'
      + ' — project initialisation adds the missing files (it never overwrites one): POST /api/projects/<project>/init or `pipeline-service init --project <project>`');
  });
});

describe('contexts from a scan', () => {
  const scan = (folders: ContextScan['folders'], repo: string | null = 'web'): ContextScan => ({ repo, root: 'directory', folders, cut: false });

  it('fails a repository without contexts, but not the sandbox of a project without repositories', () => {
    expect(contextsFromScan({ repo: 'web', root: 'absent', folders: [], cut: false }).problems).toEqual([{ kind: 'no-context', repo: 'web' }]);
    expect(contextsFromScan({ repo: null, root: 'absent', folders: [], cut: false }).problems).toEqual([]);
  });

  it('reports a bad context.yaml with the key at fault, and keeps the good contexts', () => {
    const found = contextsFromScan(scan([
      { name: 'api', link: false, files: { 'context.yaml': file('test: npm test\n'), 'principles.md': file('x') } },
      { name: 'web', link: false, files: { 'context.yaml': file('name: web\n'), 'principles.md': file('y') } },
      { name: 'docs', link: false, files: { 'context.yaml': file('name: docs\n'), 'principles.md': missing } },
    ]));
    expect(found.contexts.map((c) => c.name)).toEqual(['web']);
    expect(found.problems).toEqual([
      { kind: 'unusable', repo: 'web', context: 'api', message: '.service/contexts/api/context.yaml key test: must be a list of shell commands, not a string' },
      { kind: 'missing-file', repo: 'web', context: 'docs', file: 'principles.md' },
    ]);
  });
});

describe('context.yaml', () => {
  it('fills in the defaults', () => {
    expect(parseContextYaml('r', 'web', '')).toEqual({ name: 'web', path: '.', description: '', image: null, setup: [], build: [], test: [], notes: [] });
    expect(parseContextYaml('r', 'web', 'image: ""\npath: api/\n')).toMatchObject({ path: 'api/', image: null });
  });

  it('notes unknown keys and a differing name instead of failing', () => {
    expect(parseContextYaml('r', 'web', 'name: frontend\nowners: [a]\n').notes).toEqual([
      '.service/contexts/web/context.yaml: unknown key(s) owners ignored',
      '.service/contexts/web/context.yaml: name "frontend" differs from the folder\'s; the context is called web',
    ]);
  });

  it('names the repository, the context and the key of a wrong type or bad YAML', () => {
    const failure = (text: string) => {
      try {
        parseContextYaml('shop-web', 'web', text);
      } catch (error) {
        return error as ContextError;
      }
      throw new Error('no error');
    };
    expect(failure('build: [1, {a: b}]\n').message).toBe('repository shop-web: .service/contexts/web/context.yaml key build[0]: must be a shell command (a text), not a number');
    expect(failure('setup:\n  run: x\n').message).toBe('repository shop-web: .service/contexts/web/context.yaml key setup: must be a list of shell commands, not a mapping');
    expect(failure('description: [a]\n').key).toBe('description');
    expect(failure('- a\n- b\n').message).toMatch(/context\.yaml: must be a mapping/);
    const bad = failure('build: [npm\ntest: x\n');
    expect(bad.key).toBeNull();
    expect(bad.message).toMatch(/^repository shop-web: \.service\/contexts\/web\/context\.yaml: is not valid YAML: .+ at line \d+, column \d+$/);
  });
});
