import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemPromptError, systemPromptFor, systemPromptLoader } from './system-prompts.js';

const COMMON_TOOLS = ['`bash {command, timeout_seconds?}`', '`read_file {path, start_line?, end_line?}`', '`search {pattern, path?}`', '`finish {summary}`'];

describe('the shipped system prompts', () => {
  it('code: every tool, ask with its three kinds, untrusted data, paths, what the server does, no secrets', async () => {
    const prompt = await systemPromptFor('code');
    for (const tool of [...COMMON_TOOLS, '`write_file {path, content}`', '`edit_file {path, old_text, new_text}`', '`ask {question, kind}`']) expect(prompt).toContain(tool);
    for (const kind of ['`question`', '`contradiction`', '`not-implementable`']) expect(prompt).toContain(kind);
    expect(prompt).toContain('<untrusted-data');
    expect(prompt).toMatch(/multi-repository run every path starts\s+with the repository's name/);
    expect(prompt).toMatch(/server itself runs every context's build and test commands/);
    expect(prompt).toMatch(/environment variables, tokens/);
    expect(prompt).toMatch(/smallest change/);
    expect(prompt).not.toContain('report_finding');
  });

  for (const pipeline of ['pr-review', 'security-scan']) {
    it(`${pipeline}: read-only tools and report_finding with its severities, no write tool`, async () => {
      const prompt = await systemPromptFor(pipeline);
      for (const tool of [...COMMON_TOOLS, '`report_finding {path, line, end_line?, severity, title, detail, suggestion?}`']) expect(prompt).toContain(tool);
      for (const severity of ['critical', 'high', 'medium', 'low', 'info']) expect(prompt).toContain(`\`${severity}\``);
      expect(prompt).not.toMatch(/`(write_file|edit_file|ask) \{/);
      expect(prompt).toContain('<untrusted-data');
      expect(prompt).toMatch(/environment variables, tokens/);
    });
  }

  it('init: the context files and their keys, never overwriting', async () => {
    const prompt = await systemPromptFor('init');
    expect(prompt).toContain('.service/contexts/<name>/');
    for (const key of ['name', 'path', 'description', 'image', 'setup', 'build', 'test']) expect(prompt).toContain(`\`${key}\``);
    expect(prompt).toContain('`principles.md`');
    expect(prompt).toMatch(/Never overwrite/);
  });

  it('reads each file once', async () => {
    expect(systemPromptFor('code')).toBe(systemPromptFor('code'));
  });
});

describe('systemPromptLoader', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'prompts-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('caches a prompt, and finds a file put in place after a failed read', async () => {
    const load = systemPromptLoader(dir);
    const missing = await load('late').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SystemPromptError);
    expect((missing as Error).message).toBe(`no system prompt for pipeline "late": ${join(dir, 'late.md')} does not exist; the prompts/ folder ships with the package`);
    await writeFile(join(dir, 'late.md'), '  You are late.\n');
    expect(await load('late')).toBe('You are late.');
    await writeFile(join(dir, 'late.md'), 'Changed.');
    expect(await load('late')).toBe('You are late.');
  });

  it('refuses names that are not pipeline names, and empty files', async () => {
    const load = systemPromptLoader(dir);
    await expect(load('../package')).rejects.toThrow(/not a pipeline name/);
    await expect(load('Code')).rejects.toThrow(/not a pipeline name/);
    await writeFile(join(dir, 'empty.md'), '\n \n');
    await expect(load('empty')).rejects.toThrow(/is empty/);
  });
});
