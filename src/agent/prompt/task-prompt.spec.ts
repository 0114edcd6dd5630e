import { describe, expect, it } from 'vitest';
import { buildTaskPrompt, type TaskPromptInput } from './task-prompt.js';

const input = (over: Partial<TaskPromptInput> = {}): TaskPromptInput => ({
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

  it('a run resuming from an answered hand-back says so before the steps, and the conversation follows the ticket', () => {
    const prompt = buildTaskPrompt(input({ handBack: { kind: 'question', answered: true }, conversationBrief: '## Earlier hand-backs\n…' }));
    expect(prompt).toContain('The ticket was handed back with the question');
    expect(prompt).toContain('the answer follows it there');
    expect(prompt.indexOf('handed this ticket back')).toBeLessThan(prompt.indexOf('What to do'));
    expect(prompt.indexOf('## Earlier hand-backs')).toBeGreaterThan(prompt.indexOf('## Ticket 42'));
    const retried = buildTaskPrompt(input({ handBack: { kind: 'not-implementable', answered: false } }));
    expect(retried).toContain('retried it without an answer');
    expect(buildTaskPrompt(input())).not.toContain('handed this ticket back');
  });

  it('refuses inconsistent trees', () => {
    expect(() => buildTaskPrompt(input({ trees: [] }))).toThrow(/at least one/);
    expect(() => buildTaskPrompt(input({ trees: [{ prefix: null }, { prefix: null }] }))).toThrow(/prefix/);
    expect(() => buildTaskPrompt(input({ trees: [{ prefix: 'a' }, { prefix: null }] }))).toThrow(/prefix/);
  });
});
