import { describe, expect, it } from 'vitest';
import { buildTaskPrompt, type TaskPromptInput } from './task-prompt.js';

const input = (over: Partial<TaskPromptInput> = {}): TaskPromptInput => ({
  pipeline: 'code',
  ticketBrief: '## Ticket 42 (github)\n…',
  contextsBrief: '## Repository contexts\n…',
  trees: [{ prefix: null }],
  resumed: false,
  ...over,
});

describe('buildTaskPrompt', () => {
  it('a single repository: paths from its root, a fresh branch, the steps, then contexts and ticket', () => {
    const prompt = buildTaskPrompt(input());
    expect(prompt).toContain('You work in one repository; paths are relative to its root.');
    expect(prompt).toContain('starts from the default branch');
    expect(prompt).toMatch(/server runs every context's build and test commands/);
    expect(prompt).toMatch(/`finish` with a one-paragraph summary/);
    expect(prompt).toMatch(/`ask`/);
    expect(prompt.indexOf('## Repository contexts')).toBeGreaterThan(prompt.indexOf('What to do'));
    expect(prompt.indexOf('## Ticket 42')).toBeGreaterThan(prompt.indexOf('## Repository contexts'));
  });

  it('several repositories: each with its path prefix', () => {
    const prompt = buildTaskPrompt(input({ trees: [{ prefix: 'shop-web' }, { prefix: 'shop-api' }] }));
    expect(prompt).toContain('You work in 2 repositories:');
    expect(prompt).toContain('- `shop-web`: its files are `shop-web/…`');
    expect(prompt).toContain('- `shop-api`: its files are `shop-api/…`');
    expect(prompt).toContain("Every path you give a tool starts with the repository's name (`shop-web/README.md`)");
  });

  it('a resumed branch: build on the earlier work rather than start over', () => {
    const prompt = buildTaskPrompt(input({ resumed: true }));
    expect(prompt).toContain("already holds the earlier run's changes");
    expect(prompt).toContain('Do not start over');
    expect(prompt).not.toContain('starts from the default branch');
  });

  it('refuses other pipelines and inconsistent trees', () => {
    expect(() => buildTaskPrompt(input({ pipeline: 'pr-review' }))).toThrow(/code pipeline/);
    expect(() => buildTaskPrompt(input({ trees: [] }))).toThrow(/at least one/);
    expect(() => buildTaskPrompt(input({ trees: [{ prefix: null }, { prefix: null }] }))).toThrow(/prefix/);
    expect(() => buildTaskPrompt(input({ trees: [{ prefix: 'a' }, { prefix: null }] }))).toThrow(/prefix/);
  });
});
