import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenApiDocument, type Schema, schemaViolations } from '../support/schema-conformance.js';
import { type DiagnosticsBench, SECRETS, startDiagnosticsBench } from './support/diagnostics-bench.js';

/**
 * `POST /api/diagnostics/probe-candidate`: the dashboard's "Add project" probes a connection
 * described in the request before saving it. Through the real server against the tracker
 * stand-ins, enforcement on. A wrong token gets the host's refusal, a right one ok, and no token
 * (tried or configured) comes back in any answer.
 */
interface CandidateAnswer {
  ok: boolean;
  latencyMs: number;
  target: string | null;
  error: string | null;
}

const WRONG_TOKEN = 'ghp_wrongCandidateToken987654321';
let bench: DiagnosticsBench;
let app: NestFastifyApplication;
let root: string;
const bodies: string[] = [];

async function call(url: string, token: string, payload: unknown) {
  const res = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload: payload as object });
  bodies.push(res.body);
  return res;
}
const candidate = async (payload: Record<string, unknown>, token = root) => {
  const res = await call('/api/diagnostics/probe-candidate', token, payload);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<CandidateAnswer>();
};

beforeAll(async () => {
  bench = await startDiagnosticsBench('diag-candidate', { diagnostics: { probeTimeoutMs: 4000 } });
  app = bench.app;
  root = bench.idp.mint({ sub: 'root' });
}, 90_000);

afterAll(async () => {
  await bench?.close();
});

describe('POST /api/diagnostics/probe-candidate', () => {
  const github = (token: string) => ({ kind: 'repository', platform: 'platform-a', url: 'https://github.com/acme/shop-web', api_url: bench.github.apiUrl, token });

  it('answers ok:false with the host\'s refusal for a wrong GitHub token, and ok for the right one', async () => {
    bench.github.clearRequests();
    const wrong = await candidate(github(WRONG_TOKEN));
    expect(wrong).toEqual({ ok: false, latencyMs: expect.any(Number), target: `${bench.github.apiUrl}/repos/acme/shop-web`, error: expect.stringMatching(/401.*Bad credentials|Bad credentials.*401/) });
    const right = await candidate(github(SECRETS.github));
    expect(right).toEqual({ ok: true, latencyMs: expect.any(Number), target: `${bench.github.apiUrl}/repos/acme/shop-web`, error: null });
    expect(bench.github.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('probes a GitHub tracker on its repository, and Jira and Azure DevOps trackers on their sites', async () => {
    expect(await candidate({ ...github(SECRETS.github), kind: 'tracker' })).toMatchObject({ ok: true, error: null });
    const jira = { kind: 'tracker', platform: 'platform-d', url: bench.jira.siteUrl };
    expect(await candidate({ ...jira, token: `bot@acme.example:${SECRETS.jira}` })).toMatchObject({ ok: true, target: `${bench.jira.siteUrl}/rest/api/2/myself` });
    const refused = await candidate({ ...jira, token: 'bot@acme.example:not-the-api-token-123' });
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('401') });
    expect(await candidate({ kind: 'tracker', platform: 'platform-c', url: bench.ado.organizationUrl, token: SECRETS.ado })).toMatchObject({ ok: true, error: null });
    expect(await candidate({ kind: 'repository', platform: 'platform-b', url: 'https://gitlab.example/fin/billing', api_url: bench.gitlab.apiUrl, token: SECRETS.gitlab })).toMatchObject({ ok: true });
  });

  it('answers what is missing for a description that cannot be a connection, without calling anything', async () => {
    bench.clearRequests();
    expect(await candidate({ kind: 'repository', platform: 'platform-d', url: 'https://acme.atlassian.net', token: 'bot:tok12345' }))
      .toMatchObject({ ok: false, error: expect.stringContaining('Jira hosts no code') });
    expect(await candidate({ kind: 'repository', platform: 'platform-a', url: 'not a url', token: 'tok12345' })).toMatchObject({ ok: false, target: null });
    expect(bench.outboundRequests()).toBe(0);
  });

  it('remembers nothing: the snapshot lists no candidate and no connection changed', async () => {
    const snap = (await app.inject({ method: 'GET', url: '/api/diagnostics/connections', headers: { authorization: `Bearer ${root}` } })).json<{ connections: { name: string; lastError: unknown }[] }>();
    bodies.push(JSON.stringify(snap));
    expect(snap.connections.map((c) => c.name).filter((n) => n.includes('candidate') || n.includes('candidate:'))).toEqual([]);
    expect(snap.connections.find((c) => c.name === 'tracker:shop')?.lastError).toBeNull();
  });

  it('refuses a malformed body (400) without echoing it', async () => {
    for (const payload of [{}, { ...github(WRONG_TOKEN), kind: 'chat' }, { ...github(WRONG_TOKEN), platform: 'platform-z' }, { ...github(''), token: '' },
      { ...github(WRONG_TOKEN), extra: 1 }, { ...github(WRONG_TOKEN), url: 42 }]) {
      const res = await call('/api/diagnostics/probe-candidate', root, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json(), JSON.stringify(payload)).toEqual({ error: expect.any(String) });
    }
  });

  it('needs diagnostics.probe and config.write together: an operator (probe only) is refused naming config.write', async () => {
    const operator = bench.idp.mint({ sub: 'operator-c', claims: { roles: ['operator'] } });
    const refused = await call('/api/diagnostics/probe-candidate', operator, github(SECRETS.github));
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ missingPermissions: ['config.write'] });
    const nobody = await call('/api/diagnostics/probe-candidate', bench.idp.mint({ sub: 'nobody-c' }), github(SECRETS.github));
    expect(nobody.statusCode).toBe(403);
    expect([...nobody.json<{ missingPermissions: string[] }>().missingPermissions].sort()).toEqual(['config.write', 'diagnostics.probe']);
  });

  it('answers what /api/docs/openapi.json documents', async () => {
    type Documented = OpenApiDocument & { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };
    const document = (await app.inject({ method: 'GET', url: '/api/docs/openapi.json' })).json<Documented>();
    const schema = document.paths['/api/diagnostics/probe-candidate']?.post?.responses['200']?.content?.['application/json']?.schema;
    expect(schema).toBeDefined();
    expect(schemaViolations(document, schema!, await candidate(github(WRONG_TOKEN)))).toEqual([]);
    expect(schemaViolations(document, schema!, await candidate(github(SECRETS.github)))).toEqual([]);
  });

  it('never answers a token, tried or configured (every body of this file scanned)', () => {
    expect(bodies.length).toBeGreaterThan(15);
    for (const body of bodies) {
      expect(body).not.toContain(WRONG_TOKEN);
      expect(body).not.toContain('not-the-api-token-123');
      for (const [what, secret] of Object.entries(SECRETS)) expect(body, what).not.toContain(secret);
    }
  });
});
