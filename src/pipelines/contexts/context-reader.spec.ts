import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBackend } from '../../sandbox/in-process.backend.js';
import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import { checkContexts } from './bootstrap-gate.js';
import { MAX_CONTEXT_FILE_BYTES, scanContexts } from './context-reader.js';
import { missingContextFiles, missingPaths } from './missing-context-files.js';
import { writeSandboxFiles } from './sandbox-files.js';

const backend = new InProcessBackend('/usr/local/bin:/usr/bin:/bin');
const sandboxes: Sandbox[] = [];

async function sandboxWith(files: Record<string, string>): Promise<Sandbox> {
  const sandbox = await backend.create({ runId: 'reader-spec', name: 'web', env: {} });
  sandboxes.push(sandbox);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(sandbox.workdir, path)), { recursive: true });
    writeFileSync(join(sandbox.workdir, path), content);
  }
  return sandbox;
}

afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.destroy();
});

const YAML = 'name: web\npath: web/\ndescription: The shop front\nimage: node:24\nsetup: [npm ci]\nbuild:\n  - npm run build\ntest:\n  - npm test\n';

describe('reading contexts from a sandbox', () => {
  it('reads every context folder, its two files and their text, in one exec', async () => {
    const sandbox = await sandboxWith({
      '.service/contexts/web/context.yaml': YAML,
      '.service/contexts/web/principles.md': '# Web\nNo jQuery.\n',
      '.service/contexts/api/context.yaml': 'name: api\n',
      '.service/contexts/notes.txt': 'not a context',
      'src/index.ts': 'export {};\n',
    });
    const scan = await scanContexts(sandbox, 'shop-web');
    expect(scan.root).toBe('directory');
    expect(scan.folders.map((f) => f.name)).toEqual(['api', 'web']);
    expect(scan.folders[0]!.files).toEqual({
      'context.yaml': { state: 'file', text: 'name: api\n', size: 10, truncated: false },
      'principles.md': { state: 'missing' },
    });
    expect(scan.folders[1]!.files['principles.md']).toEqual({ state: 'file', text: '# Web\nNo jQuery.\n', size: 17, truncated: false });
  });

  it('passes the gate with the parsed contexts when every context is complete', async () => {
    const sandbox = await sandboxWith({
      '.service/contexts/web/context.yaml': `${YAML}owner: team-web\n`,
      '.service/contexts/web/principles.md': 'Keep it small.\n',
    });
    const result = await checkContexts([{ repo: { name: 'shop-web' }, sandbox }], { project: 'shop' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.contexts).toEqual([{
      repo: 'shop-web', name: 'web', path: 'web/', description: 'The shop front', image: 'node:24',
      setup: ['npm ci'], build: ['npm run build'], test: ['npm test'],
      contextYaml: `${YAML}owner: team-web\n`, principles: 'Keep it small.\n',
      notes: ['.service/contexts/web/context.yaml: unknown key(s) owner ignored'],
    }]);
    expect(result.notes).toEqual(['repository shop-web: .service/contexts/web/context.yaml: unknown key(s) owner ignored']);
  });

  it('keeps odd names, multi-byte text and cuts a big file at the bound', async () => {
    const big = 'é'.repeat(MAX_CONTEXT_FILE_BYTES); // two bytes each
    const sandbox = await sandboxWith({
      '.service/contexts/my ctx/context.yaml': 'description: "Grüße @@end"\n',
      '.service/contexts/my ctx/principles.md': big,
    });
    const result = await checkContexts([{ repo: { name: 'r' }, sandbox }], { project: 'p' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [context] = result.contexts;
    expect(context!.name).toBe('my ctx');
    expect(context!.description).toBe('Grüße @@end');
    expect(context!.principles.length).toBe(MAX_CONTEXT_FILE_BYTES / 2);
    expect(context!.notes.join()).toMatch(/principles\.md: only its first 32768 characters of 131072 bytes were read/);
  });

  it('sees no contexts folder, and a file or link where folders should be', async () => {
    expect((await scanContexts(await sandboxWith({ 'README.md': '# x\n' }), 'r')).root).toBe('absent');
    expect((await scanContexts(await sandboxWith({ '.service/contexts': 'oops' }), 'r')).root).toBe('not-a-directory');
    const linked = await sandboxWith({ 'elsewhere/web/context.yaml': 'name: web\n' });
    mkdirSync(join(linked.workdir, '.service'));
    symlinkSync('../elsewhere', join(linked.workdir, '.service/contexts'));
    expect((await scanContexts(linked, 'r')).root).toBe('link');
  });

  it('treats a symbolic link or a folder in a file\'s place as present but unusable', async () => {
    const sandbox = await sandboxWith({ '.service/contexts/web/context.yaml': 'name: web\n', 'secret.txt': 'x' });
    symlinkSync('../../../secret.txt', join(sandbox.workdir, '.service/contexts/web/principles.md'));
    mkdirSync(join(sandbox.workdir, '.service/contexts/api/principles.md'), { recursive: true });
    writeFileSync(join(sandbox.workdir, '.service/contexts/api/context.yaml'), '');
    const scan = await scanContexts(sandbox, 'r');
    expect(scan.folders.map((f) => f.files['principles.md'].state)).toEqual(['other', 'other']);
    expect(missingContextFiles('r', scan).contexts).toEqual([]);
    const result = await checkContexts([{ repo: { name: 'r' }, sandbox }], { project: 'p' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain('.service/contexts/web/principles.md is not a regular file');
    expect(result.error).toContain('fix the unusable file(s) in the repository');
    expect(result.error).not.toContain('project initialisation');
  });

  it('lists what a repository lacks: the default context whole, or the missing file of a context', async () => {
    const none = await scanContexts(await sandboxWith({ 'package.json': '{}' }), 'r');
    expect(missingPaths(missingContextFiles('r', none))).toEqual(['.service/contexts/default/context.yaml', '.service/contexts/default/principles.md']);
    const half = await scanContexts(await sandboxWith({ '.service/contexts/web/principles.md': 'Ours.\n' }), 'r');
    const missing = missingContextFiles('r', half);
    expect(missing.contexts).toEqual([{ name: 'web', files: ['context.yaml'], existing: { 'principles.md': 'Ours.\n' } }]);
  });

  it('writes files into the tree through a tar stream, next to what is there', async () => {
    const sandbox = await sandboxWith({ '.service/contexts/web/principles.md': 'Ours.\n' });
    await writeSandboxFiles(sandbox, [{ path: '.service/contexts/web/context.yaml', content: 'name: web\n' }]);
    const scan = await scanContexts(sandbox, 'r');
    expect(scan.folders[0]!.files['context.yaml']).toMatchObject({ state: 'file', text: 'name: web\n' });
    expect(scan.folders[0]!.files['principles.md']).toMatchObject({ state: 'file', text: 'Ours.\n' });
    await expect(writeSandboxFiles(sandbox, [{ path: '../x', content: '' }])).rejects.toThrow(/not a plain relative path/);
  });

  it('says which sandbox could not be read', async () => {
    const sandbox = await sandboxWith({});
    await sandbox.destroy();
    const result = await checkContexts([{ repo: { name: 'gone' }, sandbox }], { project: 'p' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/repository gone: contexts could not be read: sandbox web is destroyed/);
  });
});
