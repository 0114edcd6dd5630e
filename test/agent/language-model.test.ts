import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentConfigError, languageModelFor } from '../../src/agent/language-model.js';
import { type AgentConfig, DEFAULT_AGENT } from '../../src/config/service-config.js';

/** What each provider's API answers for one short, non-streaming completion, in its real wire shape. */
function answerFor(path: string): unknown {
  if (path.endsWith('/messages')) {
    return { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'hello from anthropic' }],
      stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 3 } };
  }
  if (path.endsWith('/chat/completions')) {
    return { id: 'c1', object: 'chat.completion', created: 1, model: 'local-test', choices: [{ index: 0, message: { role: 'assistant', content: 'hello from chat completions' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } };
  }
  return { id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'gpt-test', error: null, incomplete_details: null,
    output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'hello from responses', annotations: [] }] }],
    usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8 } };
}

let server: Server;
let base = '';
const seen: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ path, headers: req.headers, body: JSON.parse(raw || '{}') as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answerFor(path)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const agent = (overrides: Partial<AgentConfig>): AgentConfig => ({ ...DEFAULT_AGENT, api_key: 'sk-test-key', ...overrides });

describe('languageModelFor: each provider reaches its API with the configured key and endpoint', () => {
  it.each([
    ['openai', 'gpt-test', '/v1', /\/v1\/responses$/, 'hello from responses', (h: IncomingHttpHeaders) => h.authorization === 'Bearer sk-test-key'],
    ['anthropic', 'claude-test', '/v1', /\/v1\/messages$/, 'hello from anthropic', (h: IncomingHttpHeaders) => h['x-api-key'] === 'sk-test-key'],
    ['openai-compatible', 'local-test', '/v1', /\/v1\/chat\/completions$/, 'hello from chat completions', (h: IncomingHttpHeaders) => h.authorization === 'Bearer sk-test-key'],
    // Not an *.openai.azure.com host, the SDK treats the base as a gateway: {base_url}/responses.
    ['azure-openai', 'deployment-test', '/openai', /\/openai\/responses$/, 'hello from responses', (h: IncomingHttpHeaders) => h['api-key'] === 'sk-test-key'],
  ] as const)('%s', async (provider, model, prefix, path, text, authorized) => {
    seen.length = 0;
    const result = await generateText({ model: languageModelFor(agent({ provider, model, base_url: `${base}${prefix}` })), prompt: 'say hello', maxRetries: 0 });
    expect(result.text).toBe(text);
    expect(result.usage.inputTokens).toBe(5);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toMatch(path);
    expect(authorized(seen[0]!.headers)).toBe(true);
    expect(JSON.stringify(seen[0]!.body)).toContain('say hello');
  });

  it('refuses an incomplete configuration, naming the field', () => {
    expect(() => languageModelFor(agent({ provider: null }))).toThrow(AgentConfigError);
    expect(() => languageModelFor(agent({ provider: 'openai', model: 'm', api_key: null }))).toThrow(/api_key/);
    try {
      languageModelFor(agent({ provider: 'openai-compatible', model: 'm' }));
      expect.unreachable();
    } catch (error) {
      expect((error as AgentConfigError).field).toBe('base_url');
    }
  });
});
