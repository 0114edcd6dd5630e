import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APICallError } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { GENEROUS, Sandboxes, sessionWith } from './support/agent-fixture.js';
import { scriptedModel } from './support/scripted-model.js';

const sandboxes = new Sandboxes();
afterEach(() => sandboxes.destroyAll());

function apiError(statusCode: number, headers: Record<string, string> = {}, body = '') {
  return new APICallError({
    message: statusCode === 429 ? 'Too Many Requests' : `status ${statusCode}`,
    url: 'http://provider.test/v1/responses',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: body,
  });
}

describe('agent loop: how a step ends', () => {
  it('ends when the model calls finish, with its summary; tools ran in between and usage is summed', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([
      { text: 'Creating the file.', tools: [{ name: 'write_file', input: { path: 'notes/a.txt', content: 'hello\n' } }], usage: { input: 100, output: 20 } },
      { tools: [{ name: 'bash', input: { command: 'cat notes/a.txt' } }], usage: { input: 150, output: 10 } },
      { tools: [{ name: 'finish', input: { summary: 'Wrote notes/a.txt.' } }], usage: { input: 200, output: 5 } },
    ]);
    const { session, modelCalls, toolCalls, narration, usage } = sessionWith(scripted, [{ prefix: null, sandbox }], {
      prices: { input_per_mtok: 2, output_per_mtok: 10 },
      limits: { ...GENEROUS, maxCostUsd: 5 },
    });
    const outcome = await session.send('Write a note.');
    expect(outcome).toEqual({ kind: 'finished', summary: 'Wrote notes/a.txt.' });
    expect(readFileSync(join(sandbox.workdir, 'notes/a.txt'), 'utf8')).toBe('hello\n');
    expect(scripted.calls()).toHaveLength(3);
    // The second call saw the bash result of the first? No: the third saw cat's output.
    expect(scripted.promptText(2)).toContain('hello');
    expect(modelCalls.map((c) => [c.inputTokens, c.outputTokens, c.attempts, c.model])).toEqual([
      [100, 20, 1, 'mock/scripted'], [150, 10, 1, 'mock/scripted'], [200, 5, 1, 'mock/scripted'],
    ]);
    expect(modelCalls[0]!.costUsd).toBeCloseTo((100 * 2 + 20 * 10) / 1e6, 12);
    expect(toolCalls.map((c) => [c.tool, c.brief, c.ok, c.exitCode])).toEqual([
      ['write_file', 'write_file: notes/a.txt', true, null],
      ['bash', 'bash: cat notes/a.txt', true, 0],
      ['finish', 'finish', true, null],
    ]);
    expect(narration[0]).toBe('Creating the file.');
    expect(usage.at(-1)).toMatchObject({ modelCalls: 3, inputTokens: 450, outputTokens: 35 });
    expect(session.usage.costUsd).toBeCloseTo((450 * 2 + 35 * 10) / 1e6, 12);
  });

  it('ends when the model answers without a tool call, with its text', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ text: 'Nothing to change: the feature exists.' }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }]);
    expect(await session.send('Add the feature.')).toEqual({ kind: 'finished', summary: 'Nothing to change: the feature exists.' });
  });

  it('ends asked when the model calls ask (code toolset)', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ tools: [{ name: 'ask', input: { question: 'Which currency?', kind: 'question' } }] }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }]);
    expect(await session.send('Price it.')).toEqual({ kind: 'asked', question: 'Which currency?', askKind: 'question' });
  });

  it('a second send continues the conversation; the step budget starts again, usage carries over', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([
      { tools: [{ name: 'finish', input: { summary: 'first' } }] },
      { tools: [{ name: 'bash', input: { command: 'true' } }] },
      { tools: [{ name: 'finish', input: { summary: 'second' } }] },
    ]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { limits: { ...GENEROUS, maxSteps: 2 } });
    expect(await session.send('one')).toEqual({ kind: 'finished', summary: 'first' });
    expect(await session.send('two: the build failed')).toEqual({ kind: 'finished', summary: 'second' });
    // The finish call of the first send got a result, so the conversation stays valid for the provider.
    expect(scripted.promptText(1)).toContain('Finished.');
    expect(scripted.promptText(1)).toContain('two: the build failed');
    expect(session.usage.modelCalls).toBe(3);
  });

  it('an invalid tool input is an error result and the loop goes on', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([
      { tools: [{ name: 'read_file', input: { start_line: 'x' } }] },
      { rawTool: { name: 'bash', input: '{"command": "echo' } },
      { tools: [{ name: 'no_such_tool', input: {} }] },
      { tools: [{ name: 'finish', input: { summary: 'done' } }] },
    ]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }]);
    expect(await session.send('go')).toEqual({ kind: 'finished', summary: 'done' });
    expect(scripted.promptText(1)).toContain('path is required');
    expect(scripted.promptText(1)).toContain('start_line must be an integer');
    expect(scripted.promptText(2)).toContain('the input could not be read');
    expect(scripted.promptText(3)).toContain('there is no tool no_such_tool');
  });
});

describe('agent loop: budgets stop a model that never finishes', () => {
  const forever = () => scriptedModel([{ tools: [{ name: 'bash', input: { command: 'true' } }], usage: { input: 600, output: 400 } }]);

  it('steps', async () => {
    const sandbox = await sandboxes.create();
    const scripted = forever();
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { limits: { ...GENEROUS, maxSteps: 3 } });
    expect(await session.send('go')).toEqual({ kind: 'budget', budget: 'steps', reason: 'the agent made 3 model calls in this step, reaching max_steps 3' });
    expect(scripted.calls()).toHaveLength(3);
  });

  it('tokens, over the whole session, counting the usage it started with', async () => {
    const sandbox = await sandboxes.create();
    const scripted = forever();
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], {
      limits: { ...GENEROUS, maxTokens: 2_500 },
      initialUsage: { modelCalls: 1, inputTokens: 400, outputTokens: 100, costUsd: 0 },
    });
    // 500 + 1,000 + 1,000 = 2,500: reached after the second call, refused before the third.
    expect(await session.send('go')).toEqual({ kind: 'budget', budget: 'tokens', reason: 'the agent used 2,500 tokens, reaching max_tokens 2,500' });
    expect(scripted.calls()).toHaveLength(2);
    const again = await session.send('more');
    expect(again).toMatchObject({ kind: 'budget', budget: 'tokens' });
    expect(scripted.calls()).toHaveLength(2);
  });

  it('tokens, over the limit after a call', async () => {
    const sandbox = await sandboxes.create();
    const scripted = forever();
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { limits: { ...GENEROUS, maxTokens: 2_000 - 1 } });
    expect(await session.send('go')).toEqual({ kind: 'budget', budget: 'tokens', reason: 'the agent used 2,000 tokens, over max_tokens 1,999' });
  });

  it('cost, from usage and prices', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ tools: [{ name: 'bash', input: { command: 'true' } }], usage: { input: 100_000, output: 10_000 } }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], {
      limits: { ...GENEROUS, maxCostUsd: 3 },
      prices: { input_per_mtok: 10, output_per_mtok: 30 },
    });
    // 1.30 per call: 3.90 after the third.
    expect(await session.send('go')).toEqual({ kind: 'budget', budget: 'cost', reason: 'the agent spent $3.9000, over max_cost_usd 3' });
    expect(scripted.calls()).toHaveLength(3);
  });

  it('no cost limit without prices', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ tools: [{ name: 'bash', input: { command: 'true' } }], usage: { input: 100_000, output: 10_000 } }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { limits: { ...GENEROUS, maxCostUsd: 0.01, maxSteps: 4 } });
    expect(await session.send('go')).toMatchObject({ kind: 'budget', budget: 'steps' });
  });

  it('time: the step timeout aborts the model call in flight', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ tools: [{ name: 'bash', input: { command: 'true' } }] }, { hang: true }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { limits: { ...GENEROUS, stepTimeoutMs: 700 } });
    const started = Date.now();
    const outcome = await session.send('go');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcome).toMatchObject({ kind: 'budget', budget: 'time' });
    expect((outcome as { reason: string }).reason).toMatch(/^the agent step ran 0\.[7-9] s, over step_timeout_seconds 0\.7$/);
  });

  it('time: a command is killed at the step deadline', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ tools: [{ name: 'bash', input: { command: 'sleep 20', timeout_seconds: 100 } }] }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { limits: { ...GENEROUS, stepTimeoutMs: 800 } });
    const started = Date.now();
    expect(await session.send('go')).toMatchObject({ kind: 'budget', budget: 'time' });
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});

describe('agent loop: cancel', () => {
  it('during a model call returns cancelled within a second', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ hang: true }]);
    const controller = new AbortController();
    const { session, modelCalls } = sessionWith(scripted, [{ prefix: null, sandbox }], { signal: controller.signal });
    const sending = session.send('go');
    await new Promise((r) => setTimeout(r, 200));
    const cancelledAt = Date.now();
    controller.abort('the run was cancelled by alice');
    expect(await sending).toEqual({ kind: 'cancelled', reason: 'the run was cancelled by alice' });
    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    expect(modelCalls).toEqual([]);
    expect(scripted.calls()[0]!.abortSignal?.aborted).toBe(true);
  });

  it('even when the provider ignores the abort', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ hang: true, ignoreAbort: true }]);
    const controller = new AbortController();
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { signal: controller.signal });
    const sending = session.send('go');
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect(await sending).toEqual({ kind: 'cancelled', reason: 'the run was cancelled' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('during a command kills it and returns within a second', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ tools: [{ name: 'bash', input: { command: 'sleep 30; touch late' } }] }]);
    const controller = new AbortController();
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { signal: controller.signal });
    const sending = session.send('go');
    await new Promise((r) => setTimeout(r, 300));
    const cancelledAt = Date.now();
    controller.abort();
    expect(await sending).toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    const check = await sandbox.exec('pgrep -f "sleep 30" || echo none', { timeoutMs: 5000, onLine: () => undefined });
    expect(check.exitCode).toBe(0);
  });

  it('before the step starts: no model call', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ text: 'hi' }]);
    const controller = new AbortController();
    controller.abort();
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { signal: controller.signal });
    expect(await session.send('go')).toMatchObject({ kind: 'cancelled' });
    expect(scripted.calls()).toHaveLength(0);
  });
});

describe('agent loop: provider failures', () => {
  it('a 429 with Retry-After is retried after about that wait, then succeeds', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ error: apiError(429, { 'Retry-After': '1' }) }, { text: 'done' }]);
    const { session, modelCalls } = sessionWith(scripted, [{ prefix: null, sandbox }]);
    const started = Date.now();
    expect(await session.send('go')).toEqual({ kind: 'finished', summary: 'done' });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(4_000); // about the 1 s asked for, not a longer back-off (room for the suite's load)
    expect(modelCalls).toHaveLength(1);
    expect(modelCalls[0]!.attempts).toBe(2);
  });

  it('retry-after-ms wins over back-off', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ error: apiError(429, { 'retry-after-ms': '400' }) }, { text: 'done' }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { retry: { baseDelayMs: 5_000 } });
    const started = Date.now();
    expect(await session.send('go')).toEqual({ kind: 'finished', summary: 'done' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('5xx is retried with back-off', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ error: apiError(503) }, { error: apiError(500) }, { text: 'done' }]);
    const { session, modelCalls } = sessionWith(scripted, [{ prefix: null, sandbox }]);
    expect(await session.send('go')).toEqual({ kind: 'finished', summary: 'done' });
    expect(modelCalls[0]!.attempts).toBe(3);
  });

  it('5xx past the attempts fails with one line naming them', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ error: apiError(502, {}, 'bad\ngateway') }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { retry: { baseDelayMs: 1, maxAttempts: 3 } });
    const outcome = await session.send('go');
    expect(outcome).toMatchObject({ kind: 'failed' });
    expect((outcome as { error: string }).error).toBe('mock/scripted failed after 3 attempts: HTTP 502: status 502 (bad gateway)');
    expect(scripted.calls()).toHaveLength(3);
  });

  it('a 400 fails at once', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ error: apiError(400, {}, '{"error":"bad tool schema"}') }, { text: 'never' }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }]);
    const outcome = await session.send('go');
    expect(outcome).toMatchObject({ kind: 'failed' });
    expect((outcome as { error: string }).error).toMatch(/^mock\/scripted failed: HTTP 400: .*bad tool schema/);
    expect((outcome as { error: string }).error).not.toContain('\n');
    expect(scripted.calls()).toHaveLength(1);
  });

  it('a Retry-After past the step deadline fails without waiting', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ error: apiError(429, { 'retry-after': '30' }) }, { text: 'never' }]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { limits: { ...GENEROUS, stepTimeoutMs: 5_000 } });
    const started = Date.now();
    const outcome = await session.send('go');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((outcome as { error: string }).error).toMatch(/would pass the step deadline/);
  });
});

describe('agent loop: secrets', () => {
  it('never reach the next model request nor the observer', async () => {
    const secret = 'ghp_S3cr3tT0kenValue';
    const sandbox = await sandboxes.create('repo', { GIT_TOKEN: secret });
    await sandbox.exec(`mkdir -p conf && printf 'token=%s\\n' "$GIT_TOKEN" > conf/app.env`, { timeoutMs: 5000, onLine: () => undefined });
    const scripted = scriptedModel([
      { tools: [{ name: 'bash', input: { command: 'echo "$GIT_TOKEN"; echo ghp_S3cr3tT0kenValue | base64' } }] },
      { tools: [{ name: 'read_file', input: { path: 'conf/app.env' } }, { name: 'search', input: { pattern: 'token' } }] },
      { text: `I found ${secret}` },
    ]);
    const { session, everything, toolCalls } = sessionWith(scripted, [{ prefix: null, sandbox }], { secrets: [secret] });
    const outcome = await session.send('go');
    expect(toolCalls.map((c) => c.tool)).toEqual(['bash', 'read_file', 'search']);
    // What the tools gave back, in the requests after them (the model's own tool-call input is its own words).
    const toolResults = (i: number) => JSON.stringify(scripted.calls()[i]!.prompt.filter((m) => m.role === 'tool'));
    expect(toolResults(1)).toContain('***');
    for (const i of [1, 2]) expect(toolResults(i)).not.toContain(secret);
    expect(toolResults(2)).toContain('token=***');
    expect(toolResults(2)).not.toContain(Buffer.from(`${secret}\n`).toString('base64').slice(0, 20));
    expect(everything()).not.toContain(secret);
    expect(toolCalls[0]!.brief).toContain('***');
    expect(JSON.stringify(outcome)).not.toContain(secret);
  });
});

describe('agent loop: trees and toolsets', () => {
  it('in a multi-repository run, prefixes route to the right sandbox and bash takes repo', async () => {
    const api = await sandboxes.create('api');
    const web = await sandboxes.create('web');
    const scripted = scriptedModel([
      {
        tools: [
          { name: 'write_file', input: { path: 'api/src/x.ts', content: 'export const api = 1;\n' } },
          { name: 'write_file', input: { path: 'web/src/x.ts', content: 'export const web = 2;\n' } },
          { name: 'bash', input: { command: 'cat src/x.ts', repo: 'web' } },
          { name: 'bash', input: { command: 'cat src/x.ts' } },
          { name: 'search', input: { pattern: 'export const' } },
          { name: 'read_file', input: { path: 'src/x.ts' } },
        ],
      },
      { tools: [{ name: 'finish', input: { summary: 'ok' } }] },
    ]);
    const { session, toolCalls } = sessionWith(scripted, [{ prefix: 'api', sandbox: api }, { prefix: 'web', sandbox: web }]);
    expect(await session.send('go')).toEqual({ kind: 'finished', summary: 'ok' });
    expect(readFileSync(join(api.workdir, 'src/x.ts'), 'utf8')).toBe('export const api = 1;\n');
    expect(readFileSync(join(web.workdir, 'src/x.ts'), 'utf8')).toBe('export const web = 2;\n');
    const second = scripted.promptText(1);
    expect(second).toContain('export const web = 2;');
    expect(second).toContain('repo is required');
    expect(second).toContain('api/src/x.ts:1:export const api = 1;');
    expect(second).toContain('web/src/x.ts:1:export const web = 2;');
    expect(second).toContain('names no repository');
    expect(toolCalls[2]!.brief).toBe('bash: [web] cat src/x.ts');
    const bash = scripted.calls()[0]!.tools!.find((t) => t.name === 'bash') as { inputSchema: { required: string[] } };
    expect(bash.inputSchema.required).toEqual(['command', 'repo']);
  });

  it('with one tree bash offers no repo parameter', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([{ text: 'ok' }]);
    const { session } = sessionWith(scripted, [{ prefix: 'only', sandbox }]);
    await session.send('go');
    const bash = scripted.calls()[0]!.tools!.find((t) => t.name === 'bash') as { inputSchema: { properties: object } };
    expect(Object.keys(bash.inputSchema.properties)).toEqual(['command', 'timeout_seconds']);
  });

  it('the review toolset offers no write tools and collects findings', async () => {
    const sandbox = await sandboxes.create();
    const scripted = scriptedModel([
      {
        tools: [
          { name: 'report_finding', input: { path: 'src/a.ts', line: 3, end_line: 5, severity: 'high', title: 'SQL injection', detail: 'Query built by concatenation.', suggestion: 'Use parameters.' } },
          { name: 'report_finding', input: { path: 'src/b.ts', line: 1, severity: 'urgent', title: 't', detail: 'd' } },
          { name: 'report_finding', input: { path: '../etc/passwd', line: 1, severity: 'low', title: 't', detail: 'd' } },
          { name: 'write_file', input: { path: 'a.txt', content: 'x' } },
        ],
      },
      { tools: [{ name: 'finish', input: { summary: 'one finding' } }] },
    ]);
    const { session } = sessionWith(scripted, [{ prefix: null, sandbox }], { toolset: 'review' });
    expect(await session.send('review')).toEqual({ kind: 'finished', summary: 'one finding' });
    const offered = scripted.calls()[0]!.tools!.map((t) => t.name).sort();
    expect(offered).toEqual(['bash', 'finish', 'read_file', 'report_finding', 'search']);
    expect(session.findings).toEqual([
      { path: 'src/a.ts', line: 3, endLine: 5, severity: 'high', title: 'SQL injection', detail: 'Query built by concatenation.', suggestion: 'Use parameters.' },
    ]);
    const second = scripted.promptText(1);
    expect(second).toContain('severity must be one of critical, high, medium, low, info');
    expect(second).toContain('leaves the working tree');
    expect(second).toContain('there is no tool write_file');
  });
});
