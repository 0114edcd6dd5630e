import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentFinding, AgentTree } from '../../src/agent/agent-types.js';
import { AgentTrees } from '../../src/agent/tools/agent-trees.js';
import { BASH_OUTPUT_MAX_CHARS } from '../../src/agent/tools/bash.tool.js';
import { SEARCH_MAX_RESULTS } from '../../src/agent/tools/search.tool.js';
import { Toolbox } from '../../src/agent/tools/toolbox.js';
import type { ToolContext } from '../../src/agent/tools/tool-types.js';
import { Sandboxes } from './support/agent-fixture.js';

const sandboxes = new Sandboxes();
afterEach(() => sandboxes.destroyAll());

/** Runs tools directly, as the loop does, against real in-process sandboxes. */
async function toolsOver(trees?: AgentTree[]) {
  const list = trees ?? [{ prefix: null, sandbox: await sandboxes.create() }];
  const agentTrees = new AgentTrees(list);
  const toolbox = new Toolbox('code', agentTrees);
  const findings: AgentFinding[] = [];
  const context: ToolContext = { trees: agentTrees, signal: new AbortController().signal, deadline: Date.now() + 60_000, findings, scrub: (t) => t };
  const run = async (name: string, input: Record<string, unknown>) => (await toolbox.run(name, input, null, context)).result;
  return { run, workdir: list[0]!.sandbox.workdir };
}

describe('edit_file', () => {
  it('replaces the one occurrence, keeping every other byte (CRLF, no final newline) and the mode', async () => {
    const { run, workdir } = await toolsOver();
    writeFileSync(join(workdir, 'a.sh'), 'one\r\ntwo\r\nthree', { mode: 0o755 });
    const result = await run('edit_file', { path: 'a.sh', old_text: 'two', new_text: 'TWO' });
    expect(result).toMatchObject({ ok: true, output: 'Edited a.sh at line 2.' });
    expect(readFileSync(join(workdir, 'a.sh'), 'utf8')).toBe('one\r\nTWO\r\nthree');
    expect(statSync(join(workdir, 'a.sh')).mode & 0o777).toBe(0o755);
  });

  it('refuses zero and several occurrences, saying how many, and leaves the file alone', async () => {
    const { run, workdir } = await toolsOver();
    writeFileSync(join(workdir, 'a.txt'), 'x = 1\nx = 1\nx = 1\n');
    const none = await run('edit_file', { path: 'a.txt', old_text: 'y = 2', new_text: 'z' });
    expect(none).toMatchObject({ ok: false, error: true });
    expect(none.output).toContain('occurs 0 times');
    const several = await run('edit_file', { path: 'a.txt', old_text: 'x = 1', new_text: 'z' });
    expect(several.output).toContain('occurs 3 times');
    expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');
  });

  it('refuses a missing file', async () => {
    const { run } = await toolsOver();
    expect((await run('edit_file', { path: 'nope.txt', old_text: 'a', new_text: 'b' })).output).toContain('no such file');
  });
});

describe('path confinement', () => {
  it('refuses absolute paths, .. escapes and symbolic links out of the tree, for every file tool', async () => {
    const { run, workdir } = await toolsOver();
    const outside = mkdtempSync(join(tmpdir(), 'agent-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'outside data\n');
    symlinkSync(outside, join(workdir, 'escape'));
    symlinkSync(join(outside, 'secret.txt'), join(workdir, 'link.txt'));
    mkdirSync(join(workdir, 'src'));
    const attempts: [string, Record<string, unknown>][] = [];
    for (const path of [join(outside, 'secret.txt'), '../secret.txt', 'src/../../secret.txt', 'escape/secret.txt', 'link.txt']) {
      attempts.push(['read_file', { path }], ['write_file', { path, content: 'pwned' }], ['edit_file', { path, old_text: 'outside', new_text: 'pwned' }]);
    }
    attempts.push(['search', { pattern: 'outside', path: 'escape' }], ['search', { pattern: 'outside', path: '..' }]);
    for (const [tool, input] of attempts) {
      const result = await run(tool, input);
      expect(result.ok, `${tool} ${JSON.stringify(input)}: ${result.output}`).toBe(false);
      expect(result.output).toMatch(/absolute|leaves the working tree|leads outside the working tree/);
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside data\n');
  });

  it('allows links that stay inside the tree', async () => {
    const { run, workdir } = await toolsOver();
    mkdirSync(join(workdir, 'real'));
    writeFileSync(join(workdir, 'real/a.txt'), 'inside\n');
    symlinkSync('real', join(workdir, 'alias'));
    expect((await run('read_file', { path: 'alias/a.txt' })).output).toBe('1\tinside');
  });
});

describe('bash', () => {
  it('cuts long output to head and tail with a note, and reports the exit code', async () => {
    const { run } = await toolsOver();
    const result = await run('bash', { command: 'echo first-line; seq 1 20000; echo last-line >&2; exit 3' });
    expect(result).toMatchObject({ ok: false, exitCode: 3 });
    expect(result.output.startsWith('first-line\n1\n2\n')).toBe(true);
    expect(result.output).toMatch(/… \[\d+ characters cut: showing the first 10000 and the last 20000\] …/);
    expect(result.output.endsWith('19999\n20000\nlast-line\n[exit code 3]')).toBe(true);
    expect(result.output.length).toBeLessThan(BASH_OUTPUT_MAX_CHARS + 200);
  });

  it('says what was cut even when the output was too big to keep whole', async () => {
    const { run } = await toolsOver();
    // ~6.9 MB: far beyond what the collector keeps (twice 256 KiB).
    const result = await run('bash', { command: 'seq 1 1000000' });
    const cut = Number(/\[(\d+) characters cut/.exec(result.output)?.[1]);
    const total = Array.from({ length: 1_000_000 }, (_, i) => String(i + 1).length + 1).reduce((a, b) => a + b, 0) - 1;
    expect(cut).toBe(total - BASH_OUTPUT_MAX_CHARS);
    expect(result.output.endsWith('999999\n1000000\n[exit code 0]')).toBe(true);
  });

  it('kills a command past its timeout and says so', async () => {
    const { run } = await toolsOver();
    const result = await run('bash', { command: 'echo started; sleep 10', timeout_seconds: 1 });
    expect(result.output).toBe('started\n[timed out after 1 s and was killed]');
    expect(result.ok).toBe(false);
  });
});

describe('read_file, write_file, search', () => {
  it('write_file takes any content (quotes, $, backslashes, unicode, no final newline) and creates parents', async () => {
    const { run, workdir } = await toolsOver();
    const content = `it's "$HOME" \`id\` \\n ${'é😀'} \u0000 end`;
    expect(await run('write_file', { path: 'deep/er/a.txt', content })).toMatchObject({ ok: true, output: 'Created deep/er/a.txt (' + Buffer.byteLength(content) + ' bytes).' });
    expect(readFileSync(join(workdir, 'deep/er/a.txt'), 'utf8')).toBe(content);
    expect((await run('write_file', { path: 'deep/er/a.txt', content: 'new' })).output).toContain('Replaced');
    expect((await run('write_file', { path: 'deep', content: 'x' })).output).toContain('directory');
  });

  it('read_file numbers lines, reads a range, and says how to read on', async () => {
    const { run, workdir } = await toolsOver();
    writeFileSync(join(workdir, 'big.txt'), Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n'));
    const first = await run('read_file', { path: 'big.txt' });
    expect(first.output.startsWith('1\tline 1\n2\tline 2\n')).toBe(true);
    expect(first.output.endsWith('2000\tline 2000\n[lines 1-2000 of 2500; read on with start_line=2001]')).toBe(true);
    const range = await run('read_file', { path: 'big.txt', start_line: 2499, end_line: 3000 });
    expect(range.output).toBe('2499\tline 2499\n2500\tline 2500\n[lines 2499-2500 of 2500]');
    writeFileSync(join(workdir, 'bin.dat'), Buffer.from([0, 1, 2, 0, 255]));
    expect((await run('read_file', { path: 'bin.dat' })).output).toContain('binary');
    expect((await run('read_file', { path: 'missing.txt' })).output).toContain('no such file');
  });

  it('search finds path:line:text, skips .git, and caps the results', async () => {
    const { run, workdir } = await toolsOver();
    mkdirSync(join(workdir, 'src'));
    mkdirSync(join(workdir, '.git'));
    writeFileSync(join(workdir, 'src/a.ts'), 'const a = 1;\nconst needle = 2;\n');
    writeFileSync(join(workdir, '.git/config'), 'needle\n');
    expect((await run('search', { pattern: 'need(le)?' })).output).toBe('src/a.ts:2:const needle = 2;');
    expect((await run('search', { pattern: 'absent' })).output).toBe('No matches.');
    writeFileSync(join(workdir, 'src/many.txt'), 'hit\n'.repeat(90));
    writeFileSync(join(workdir, 'src/more.txt'), 'hit\n'.repeat(90));
    writeFileSync(join(workdir, 'src/most.txt'), 'hit\n'.repeat(90));
    const capped = await run('search', { pattern: 'hit', path: 'src' });
    expect(capped.output.split('\n').filter((l) => l.includes(':hit'))).toHaveLength(SEARCH_MAX_RESULTS);
    expect(capped.output).toContain(`[270 matching lines, the first ${SEARCH_MAX_RESULTS} shown`);
  });
});
