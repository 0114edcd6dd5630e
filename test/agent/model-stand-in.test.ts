import type { IncomingHttpHeaders } from 'node:http';
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { languageModelFor } from '../../src/agent/language-model.js';
import { type AgentConfig, type AgentProvider, DEFAULT_AGENT } from '../../src/config/service-config.js';
import { ModelStandIn, type ModelWireFormat } from '../stand-ins/model-stand-in.js';

const KEY = 'sk-test-key';
let standIn: ModelStandIn;

beforeAll(async () => {
  standIn = await ModelStandIn.start({ apiKey: KEY, models: ['gpt-test', 'claude-test'] });
});
afterAll(() => standIn.close());
beforeEach(() => standIn.reset());

interface ProviderCase {
  provider: AgentProvider;
  model: string;
  base: () => string;
  path: RegExp;
  format: ModelWireFormat;
  idPrefix: string;
  authorized: (headers: IncomingHttpHeaders) => boolean;
}

const bearer = (h: IncomingHttpHeaders): boolean => h.authorization === `Bearer ${KEY}`;
const cases: ProviderCase[] = [
  { provider: 'openai', model: 'gpt-test', base: () => standIn.baseUrl, path: /^\/v1\/responses$/, format: 'openai-responses', idPrefix: 'call_', authorized: bearer },
  // Not an *.openai.azure.com host: the SDK posts to {base_url}/responses, no api-version.
  { provider: 'azure-openai', model: 'deployment-test', base: () => `${standIn.url}/openai`, path: /^\/openai\/responses$/, format: 'openai-responses', idPrefix: 'call_',
    authorized: (h) => h['api-key'] === KEY && h.authorization === undefined },
  { provider: 'anthropic', model: 'claude-sonnet-4-5', base: () => standIn.baseUrl, path: /^\/v1\/messages$/, format: 'anthropic-messages', idPrefix: 'toolu_',
    authorized: (h) => h['x-api-key'] === KEY && h['anthropic-version'] === '2023-06-01' },
  { provider: 'openai-compatible', model: 'local-test', base: () => standIn.baseUrl, path: /^\/v1\/chat\/completions$/, format: 'openai-chat', idPrefix: 'call_', authorized: bearer },
];

function modelFor(c: ProviderCase, apiKey = KEY): LanguageModelV4 {
  const agent: AgentConfig = { ...DEFAULT_AGENT, provider: c.provider, model: c.model, base_url: c.base(), api_key: apiKey };
  return languageModelFor(agent) as LanguageModelV4;
}

const commandSchema = jsonSchema<{ command: string }>({ type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false });
const summarySchema = jsonSchema<{ summary: string }>({ type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'], additionalProperties: false });
const tools = {
  bash: tool({ description: 'Run a command', inputSchema: commandSchema, execute: async ({ command }) => `ran ${command}: file-a file-b` }),
  finish: tool({ description: 'End the task', inputSchema: summarySchema }),
};

const conversation = [
  { toolCalls: [{ name: 'bash', input: { command: 'ls -la' } }], text: 'Let me look.' },
  { text: 'All good: two files.', usage: { inputTokens: 321, outputTokens: 9 } },
];

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function apiCallError(error: unknown): APICallError {
  const found = APICallError.isInstance(error) ? error : APICallError.isInstance((error as { cause?: unknown })?.cause) ? (error as { cause: APICallError }).cause : null;
  if (!found) throw new Error(`not an APICallError: ${String(error)}`);
  return found;
}

describe.each(cases)('model stand-in over the wire: $provider', (c) => {
  it('generateText: a scripted tool call comes back as one, the follow-up carries its result, usage arrives', async () => {
    standIn.script({ turns: conversation });
    const result = await generateText({ model: modelFor(c), tools, prompt: 'List the files', stopWhen: stepCountIs(3), maxRetries: 0 });

    const calls = standIn.modelCalls();
    expect(calls).toHaveLength(2);
    const [first, followUp] = result.steps;
    expect(result.steps).toHaveLength(2);
    expect(first!.finishReason).toBe('tool-calls');
    expect(first!.toolCalls).toHaveLength(1);
    const call = first!.toolCalls[0]!;
    expect(call.toolName).toBe('bash');
    expect(call.input).toEqual({ command: 'ls -la' });
    expect(call.toolCallId.startsWith(c.idPrefix)).toBe(true);
    expect(first!.text).toBe('Let me look.');
    expect(first!.usage.inputTokens).toBe(Math.ceil(calls[0]!.body.length / 4));
    expect(first!.usage.outputTokens).toBe(20);
    expect(result.text).toBe('All good: two files.');
    expect(followUp!.finishReason).toBe('stop');
    expect(followUp!.usage.inputTokens).toBe(321);
    expect(followUp!.usage.outputTokens).toBe(9);

    for (const request of calls) {
      expect(request.path).toMatch(c.path);
      expect(request.format).toBe(c.format);
      expect(c.authorized(request.headers)).toBe(true);
      expect(request.stream).toBe(false);
      expect(request.tools.sort()).toEqual(['bash', 'finish']);
      expect(request.status).toBe(200);
    }
    expect(calls[0]!.text).toContain('List the files');
    // The assistant turn came back whole (Responses: its text as an item_reference the stand-in resolves).
    const assistant = calls[1]!.messages.find((m) => m.role === 'assistant');
    expect(assistant?.text).toBe('Let me look.');
    expect(assistant?.toolCalls).toEqual([{ id: call.toolCallId, name: 'bash', input: { command: 'ls -la' } }]);
    const toolResult = calls[1]!.messages.find((m) => m.role === 'tool');
    expect(toolResult?.toolCallId).toBe(call.toolCallId);
    expect(toolResult?.text).toContain('ran ls -la: file-a file-b');
  });

  it('streamText: the same conversation streamed (tool-call deltas, usage events)', async () => {
    standIn.script({ turns: conversation });
    const result = streamText({ model: modelFor(c), tools, prompt: 'List the files', stopWhen: stepCountIs(3), maxRetries: 0 });
    expect(await result.text).toBe('All good: two files.');
    const steps = await result.steps;

    const calls = standIn.modelCalls();
    expect(calls.map((r) => r.stream)).toEqual([true, true]);
    expect(calls.every((r) => c.path.test(r.path) && c.authorized(r.headers))).toBe(true);
    expect(steps).toHaveLength(2);
    const call = steps[0]!.toolCalls[0]!;
    expect(call.toolName).toBe('bash');
    expect(call.input).toEqual({ command: 'ls -la' });
    expect(call.toolCallId.startsWith(c.idPrefix)).toBe(true);
    expect(steps[0]!.text).toBe('Let me look.');
    expect(steps[0]!.finishReason).toBe('tool-calls');
    expect(steps[0]!.usage.inputTokens).toBe(Math.ceil(calls[0]!.body.length / 4));
    expect(steps[0]!.usage.outputTokens).toBe(20);
    expect(steps[1]!.usage.inputTokens).toBe(321);
    expect(steps[1]!.usage.outputTokens).toBe(9);
    expect((await result.totalUsage).outputTokens).toBe(29);
    expect(calls[1]!.messages.find((m) => m.role === 'tool')?.toolCallId).toBe(call.toolCallId);
  });

  it('a follow-up without the tool result is refused with 400, as the real API does', async () => {
    standIn.script({ turns: [{ toolCalls: [{ name: 'bash', input: { command: 'pwd' } }] }, { text: 'never served' }] });
    const model = modelFor(c);
    const first = await generateText({ model, tools, prompt: 'Where am I?', maxRetries: 0 });
    const call = first.toolCalls[0]!;
    expect(call.toolName).toBe('bash');
    // The AI SDK itself refuses such a prompt (MissingToolResultsError), so it goes to the provider model directly.
    const prompt: LanguageModelV4Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'Where am I?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: call.toolCallId, toolName: 'bash', input: call.input }] },
      { role: 'user', content: [{ type: 'text', text: 'go on' }] },
    ];
    const error = apiCallError(await rejection(model.doGenerate({ prompt, tools: [{ type: 'function', name: 'bash', inputSchema: commandSchema.jsonSchema as never }] })));
    expect(error.statusCode).toBe(400);
    expect(error.message).toContain(call.toolCallId);
    expect(standIn.modelCalls()[1]!.status).toBe(400);
  });

  it('a wrong key answers 401 in the provider\'s error shape', async () => {
    standIn.script({ turns: [{ text: 'not for you' }] });
    const error = apiCallError(await rejection(generateText({ model: modelFor(c, 'sk-wrong-key-1234'), prompt: 'hi', maxRetries: 0 })));
    expect(error.statusCode).toBe(401);
    expect(error.isRetryable).toBe(false);
    expect(error.message.length).toBeGreaterThan(5);
    const body = JSON.parse(error.responseBody ?? '{}') as Record<string, unknown>;
    if (c.format === 'anthropic-messages') expect(body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    else expect(body).toMatchObject({ error: { message: error.message } });
    expect(standIn.modelCalls()[0]!.status).toBe(401);
  });

  it('a rate limit answers 429 with Retry-After, an APICallError the SDK sees (no retries)', async () => {
    standIn.script({ turns: [{ fault: 'rate-limit', retryAfterSeconds: 7 }, { text: 'later' }] });
    const error = apiCallError(await rejection(generateText({ model: modelFor(c), prompt: 'hi', maxRetries: 0 })));
    expect(error.statusCode).toBe(429);
    expect(error.isRetryable).toBe(true);
    expect(error.responseHeaders?.['retry-after']).toBe('7');
    expect(standIn.modelCalls()).toHaveLength(1);
  });

  it('streamText meets the 429 before any stream: the error reaches onError and the result rejects', async () => {
    standIn.script({ turns: [{ fault: 'rate-limit', retryAfterSeconds: 3 }] });
    const seen: unknown[] = [];
    const result = streamText({ model: modelFor(c), prompt: 'hi', maxRetries: 0, onError: ({ error }) => void seen.push(error) });
    await rejection(result.text);
    expect(seen).toHaveLength(1);
    const error = apiCallError(seen[0]);
    expect(error.statusCode).toBe(429);
    expect(error.responseHeaders?.['retry-after']).toBe('3');
  });

  it('a hanging request ends promptly when the caller aborts, and the stand-in counts it', async () => {
    standIn.script({ turns: [{ fault: 'hang' }] });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(generateText({ model: modelFor(c), prompt: 'hi', maxRetries: 0, abortSignal: controller.signal }));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((error as Error).name).toBe('AbortError');
    await expect.poll(() => standIn.abortedRequests, { timeout: 2_000 }).toBe(1);
    expect(standIn.modelCalls()[0]).toMatchObject({ aborted: true, status: null });
  });
});

describe('model stand-in: scripts, faults and checks', () => {
  const chat = cases.find((c) => c.provider === 'openai-compatible')!;
  const responses = cases.find((c) => c.provider === 'openai')!;

  it('routes requests to the first script with turns left whose match occurs in the body; a used-up script answers "done"', async () => {
    const alpha = standIn.script({ match: 'ticket ALPHA', turns: [{ text: 'alpha 1' }, { text: 'alpha 2' }] });
    const beta = standIn.script({ match: 'ticket BETA', turns: [{ text: 'beta 1' }] });
    const ask = async (prompt: string): Promise<string> => (await generateText({ model: modelFor(chat), prompt, maxRetries: 0 })).text;
    expect(await ask('work on ticket BETA')).toBe('beta 1');
    expect(await ask('work on ticket ALPHA')).toBe('alpha 1');
    expect(await ask('work on ticket ALPHA')).toBe('alpha 2');
    expect(await ask('work on ticket ALPHA')).toBe('done');
    expect(await ask('work on ticket BETA')).toBe('done');
    expect(await ask('nobody scripted this')).toBe('done');
    expect([alpha.remaining, alpha.served, beta.remaining, beta.served]).toEqual([0, 3, 0, 2]);
    expect(standIn.allRequestText()).toContain('work on ticket BETA\nwork on ticket ALPHA');
  });

  it('a responder plays a model that never finishes: every answer another tool call', async () => {
    let n = 0;
    standIn.respond(() => ({ toolCalls: [{ name: 'bash', input: { command: `echo ${++n}` } }] }));
    const result = await generateText({ model: modelFor(responses), tools, prompt: 'loop', stopWhen: stepCountIs(4), maxRetries: 0 });
    expect(result.steps).toHaveLength(4);
    expect(result.steps.every((s) => s.finishReason === 'tool-calls')).toBe(true);
    expect(result.steps.map((s) => (s.toolCalls[0]?.input as { command: string }).command)).toEqual(['echo 1', 'echo 2', 'echo 3', 'echo 4']);
    // Every follow-up carried all earlier results (the stand-in would have answered 400 otherwise).
    expect(standIn.modelCalls().map((r) => r.messages.filter((m) => m.role === 'tool').length)).toEqual([0, 1, 2, 3]);
  });

  it('a scripted call to a tool the request did not offer is a 400 naming it, and the turn stays', async () => {
    const script = standIn.script({ turns: [{ toolCalls: [{ name: 'deploy', input: {} }] }] });
    const error = apiCallError(await rejection(generateText({ model: modelFor(chat), tools, prompt: 'hi', maxRetries: 0 })));
    expect(error.statusCode).toBe(400);
    expect(error.message).toContain("'deploy'");
    expect(error.message).toContain('offered: bash, finish');
    expect(script.remaining).toBe(1);
  });

  it('a 429 with Retry-After 0 is retried by the SDK at once, then the next turn answers', async () => {
    standIn.script({ turns: [{ fault: 'rate-limit', retryAfterSeconds: 0 }, { text: 'after the retry' }] });
    const result = await generateText({ model: modelFor(cases[2]!), prompt: 'hi', maxRetries: 1 });
    expect(result.text).toBe('after the retry');
    expect(standIn.modelCalls().map((r) => r.status)).toEqual([429, 200]);
  });

  it('server errors answer the scripted 5xx in the provider shape', async () => {
    standIn.script({ turns: [{ fault: 'server-error', status: 503 }, { fault: 'server-error', status: 529 }] });
    const openai = apiCallError(await rejection(generateText({ model: modelFor(responses), prompt: 'hi', maxRetries: 0 })));
    expect([openai.statusCode, openai.isRetryable]).toEqual([503, true]);
    expect(JSON.parse(openai.responseBody ?? '{}')).toMatchObject({ error: { type: 'server_error' } });
    const anthropic = apiCallError(await rejection(generateText({ model: modelFor(cases[2]!), prompt: 'hi', maxRetries: 0 })));
    expect(anthropic.statusCode).toBe(529);
    expect(JSON.parse(anthropic.responseBody ?? '{}')).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });

  it('streamText on a hanging request: aborting ends it promptly (onAbort, no error)', async () => {
    standIn.script({ turns: [{ fault: 'hang' }] });
    const controller = new AbortController();
    const events: string[] = [];
    const result = streamText({ model: modelFor(responses), prompt: 'hi', maxRetries: 0, abortSignal: controller.signal,
      onAbort: () => void events.push('abort'), onError: () => void events.push('error') });
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const outcome = await Promise.race([result.text.then(() => 'resolved', () => 'rejected'), new Promise((resolve) => setTimeout(() => resolve('timeout'), 2_000))]);
    expect(outcome).not.toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(() => standIn.abortedRequests, { timeout: 2_000 }).toBe(1);
    expect(events).toEqual(['abort']);
    expect(outcome).toBe('rejected');
  });

  it('delays a turn by delayMs', async () => {
    standIn.script({ turns: [{ text: 'slow', delayMs: 150 }] });
    const started = Date.now();
    expect((await generateText({ model: modelFor(chat), prompt: 'hi', maxRetries: 0 })).text).toBe('slow');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('Responses: an item_reference the stand-in never stored is a 400, like an unstored item', async () => {
    const model = modelFor(responses);
    const prompt: LanguageModelV4Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'earlier', providerOptions: { openai: { itemId: 'msg_unknown' } } }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ];
    const error = apiCallError(await rejection(model.doGenerate({ prompt })));
    expect(error.statusCode).toBe(400);
    expect(error.message).toContain("Item with id 'msg_unknown' not found");
  });

  it('lists models in the OpenAI or Anthropic shape and checks the key', async () => {
    const openai = await fetch(`${standIn.baseUrl}/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(openai.status).toBe(200);
    expect(await openai.json()).toEqual({ object: 'list', data: [expect.objectContaining({ id: 'gpt-test', object: 'model' }), expect.objectContaining({ id: 'claude-test', object: 'model' })] });
    const anthropic = await fetch(`${standIn.baseUrl}/models`, { headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' } });
    expect(await anthropic.json()).toMatchObject({ data: [{ id: 'gpt-test', type: 'model' }, { id: 'claude-test', type: 'model' }] });
    const wrong = await fetch(`${standIn.baseUrl}/models`, { headers: { 'x-api-key': 'nope', 'anthropic-version': '2023-06-01' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const missing = await fetch(`${standIn.baseUrl}/models`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('Anthropic without anthropic-version is a 400; an unknown path a 404', async () => {
    const noVersion = await fetch(`${standIn.baseUrl}/messages`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: '{}' });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
    const unknown = await fetch(`${standIn.baseUrl}/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{}' });
    expect(unknown.status).toBe(404);
  });
});
