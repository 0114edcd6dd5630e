import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkModelProvider } from '../../src/agent/provider-preflight.js';
import { type AgentConfig, type AgentProvider, DEFAULT_AGENT } from '../../src/config/service-config.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';

const KEY = 'sk-preflight-key-6c1f0e';
let standIn: ModelStandIn;

beforeAll(async () => {
  standIn = await ModelStandIn.start({ apiKey: KEY });
});
afterAll(() => standIn.close());
beforeEach(() => standIn.reset());

const agentFor = (provider: AgentProvider, extra: Partial<AgentConfig> = {}): AgentConfig => ({
  ...DEFAULT_AGENT,
  provider,
  model: provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-test',
  base_url: provider === 'azure-openai' ? `${standIn.url}/openai` : standIn.baseUrl,
  api_key: KEY,
  ...extra,
});

describe('provider preflight over the wire', () => {
  it.each(['openai', 'azure-openai', 'anthropic', 'openai-compatible'] as const)('%s: one tiny non-streaming call proves endpoint, key and model', async (provider) => {
    const check = await checkModelProvider(agentFor(provider), { timeoutMs: 5000 });
    expect(check).toMatchObject({ ok: true });
    const calls = standIn.modelCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.stream).toBe(false);
  });

  it('a refused key is blocking, names api_key, and never carries the key', async () => {
    const wrong = 'sk-wrong-key-91d2aa';
    const check = await checkModelProvider(agentFor('openai', { api_key: wrong }), { timeoutMs: 5000 });
    expect(check).toMatchObject({ ok: false, blocking: true, field: 'api_key' });
    expect(JSON.stringify(check)).not.toContain(wrong);
    expect(JSON.stringify(check)).toContain('401');
  });

  it('a provider failing now (5xx) or not answering is advisory', async () => {
    standIn.script({ turns: [{ fault: 'server-error', status: 503 }] });
    const busy = await checkModelProvider(agentFor('anthropic'), { timeoutMs: 5000 });
    expect(busy).toMatchObject({ ok: false, blocking: false, field: 'base_url' });

    standIn.script({ turns: [{ fault: 'hang' }] });
    const started = Date.now();
    const silent = await checkModelProvider(agentFor('openai-compatible'), { timeoutMs: 300 });
    expect(silent).toMatchObject({ ok: false, blocking: false });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a wrong endpoint (404) is blocking; a missing base_url is named', async () => {
    // A web server that is not the provider's API: every path is 404, as a mistyped base_url meets.
    const other = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"Not Found"}}'));
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    try {
      const port = (other.address() as AddressInfo).port;
      const wrongPath = await checkModelProvider(agentFor('openai-compatible', { base_url: `http://127.0.0.1:${port}/v1` }), { timeoutMs: 5000 });
      expect(wrongPath).toMatchObject({ ok: false, blocking: true, field: 'model' });
      expect(wrongPath.ok ? '' : wrongPath.reason).toContain('404');
    } finally {
      other.close();
    }
    const missing = await checkModelProvider(agentFor('openai-compatible', { base_url: null }), { timeoutMs: 5000 });
    expect(missing).toMatchObject({ ok: false, blocking: true, field: 'base_url' });
  });
});
