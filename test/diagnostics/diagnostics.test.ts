import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { type OpenApiDocument, type Schema, schemaViolations } from '../support/schema-conformance.js';
import { type DiagnosticsBench, SECRETS, startDiagnosticsBench } from './support/diagnostics-bench.js';

/**
 * The two diagnostics routes against the real server and real stand-ins of all four trackers,
 * the model provider, PostgreSQL, Redis, the in-process sandbox and the OIDC authority,
 * enforcement on. The probe timeout is shortened to a few seconds (the test knob) so the silent
 * target's answer comes quickly; nothing asserts how long anything took.
 */
interface Connection {
  name: string;
  kind: string;
  project: string | null;
  target: string | null;
  configured: boolean;
  lastOk: string | null;
  lastError: { at: string; message: string } | null;
}
interface Snapshot {
  connections: Connection[];
  webhooks: { platform: string; secretConfigured: boolean; lastDelivery: { at: string; outcome: string } | null }[];
}
interface ProbeAnswer {
  name: string;
  ok: boolean;
  latencyMs: number;
  error: string | null;
}

const PROBE_TIMEOUT_MS = 4000;
let bench: DiagnosticsBench;
let app: NestFastifyApplication;
let root: string;
/** Every answer body, scanned for secrets at the end. */
const bodies: string[] = [];

async function call(method: 'GET' | 'POST', url: string, token: string, payload?: unknown) {
  const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
  bodies.push(res.body);
  return res;
}
const snapshot = async (token = root) => {
  const res = await call('GET', '/api/diagnostics/connections', token);
  expect(res.statusCode).toBe(200);
  return res.json<Snapshot>();
};
const probe = async (name: string, token = root) => {
  const res = await call('POST', '/api/diagnostics/probe', token, { name });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ProbeAnswer>();
};
const connection = (snap: Snapshot, name: string) => {
  const found = snap.connections.find((c) => c.name === name);
  expect(found, name).toBeDefined();
  return found!;
};

beforeAll(async () => {
  bench = await startDiagnosticsBench('diagnostics', { diagnostics: { probeTimeoutMs: PROBE_TIMEOUT_MS } });
  app = bench.app;
  root = bench.idp.mint({ sub: 'root' });
}, 90_000);

afterAll(async () => {
  await bench?.close();
});

describe('GET /api/diagnostics/connections', () => {
  it('lists every connection of every kind configured, with credential-free targets, and calls nothing', async () => {
    bench.clearRequests();
    const snap = await snapshot();
    expect(bench.outboundRequests()).toBe(0);
    const names = snap.connections.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining([
      'tracker:shop', 'repository:shop/shop-web', 'tracker:billing', 'repository:billing/billing', 'tracker:boards', 'repository:boards/shop-web',
      'tracker:issues', 'tracker:quiet', 'model:openai', 'store', 'database', 'sandbox', 'authority',
    ]));
    expect(new Set(snap.connections.map((c) => c.kind))).toEqual(new Set(['tracker', 'repository', 'model', 'store', 'database', 'sandbox', 'authority']));
    expect(connection(snap, 'tracker:shop')).toMatchObject({ kind: 'tracker', project: 'shop', configured: true, target: `${bench.github.apiUrl}/repos/acme/shop-web` });
    expect(connection(snap, 'tracker:issues')).toMatchObject({ project: 'issues', configured: true, target: `${bench.jira.siteUrl}/rest/api/2/myself` });
    expect(connection(snap, 'model:openai')).toMatchObject({ kind: 'model', project: null, configured: true, target: bench.model.baseUrl });
    expect(connection(snap, 'store').target).toMatch(/^redis:\/\/127\.0\.0\.1:6379/);
    expect(connection(snap, 'database').target).toMatch(/^postgres:\/\/127\.0\.0\.1:5432\//);
    expect(connection(snap, 'authority').target).toBe(`${bench.idp.authority}/.well-known/openid-configuration`);
    for (const c of snap.connections) expect(c.target ?? '', c.name).not.toMatch(/\/\/[^/]*@/);
  });

  it('reports what normal work observed: the store and the database in use, the authority probe', async () => {
    const snap = await snapshot();
    expect(connection(snap, 'store').lastOk).not.toBeNull();
    expect(connection(snap, 'database').lastOk).not.toBeNull();
    expect(connection(snap, 'authority').lastOk).not.toBeNull();
  });

  it('shows per platform whether a webhook secret is configured and the last delivery with its outcome', async () => {
    const before = await snapshot();
    expect(before.webhooks.map((w) => [w.platform, w.secretConfigured])).toEqual([
      ['platform-a', true], ['platform-b', false], ['platform-c', false], ['platform-d', true],
    ]);
    expect(before.webhooks.find((w) => w.platform === 'platform-a')?.lastDelivery).toBeNull();
    const delivery = await app.inject({
      method: 'POST', url: '/webhook/platform-a', payload: { action: 'labeled' },
      headers: { 'x-github-event': 'issues', 'x-hub-signature-256': 'sha256=0000', 'x-github-delivery': 'd-1' },
    });
    expect(delivery.statusCode).toBe(401);
    const after = await eventually(async () => {
      const snap = await snapshot();
      return snap.webhooks.find((w) => w.platform === 'platform-a')?.lastDelivery ? snap : undefined;
    }, 10_000, 'the delivery in the trigger log');
    expect(after.webhooks.find((w) => w.platform === 'platform-a')?.lastDelivery).toEqual({ at: expect.any(String), outcome: 'unauthorized' });
    expect(after.webhooks.find((w) => w.platform === 'platform-b')?.lastDelivery).toBeNull();
  });
});

describe('POST /api/diagnostics/probe', () => {
  const trackers = () => [
    { name: 'tracker:shop', standIn: bench.github },
    { name: 'tracker:billing', standIn: bench.gitlab },
    { name: 'tracker:boards', standIn: bench.ado },
    { name: 'tracker:issues', standIn: bench.jira },
  ];

  it('reaches each tracker stand-in with one authenticated read', async () => {
    for (const { name, standIn } of trackers()) {
      standIn.clearRequests();
      const answer = await probe(name);
      expect(answer, name).toEqual({ name, ok: true, latencyMs: expect.any(Number), error: null });
      expect(standIn.requests.map((r) => r.method), name).toEqual(['GET']);
    }
    const snap = await snapshot();
    for (const { name } of trackers()) expect(connection(snap, name).lastOk, name).not.toBeNull();
  });

  it('answers ok:false with the error while a tracker is down, records it, and ok again once it is back', async () => {
    for (const { name, standIn } of trackers()) {
      await standIn.stop();
      const down = await probe(name);
      expect(down.ok, name).toBe(false);
      expect(down.error, name).toMatch(/ECONNREFUSED/);
      expect(connection(await snapshot(), name).lastError?.message, name).toBe(down.error);
      await standIn.restart();
      expect((await probe(name)).ok, name).toBe(true);
    }
  });

  it('probes the repositories on their code hosts', async () => {
    for (const name of ['repository:shop/shop-web', 'repository:billing/billing', 'repository:boards/shop-web']) {
      expect(await probe(name), name).toMatchObject({ ok: true, error: null });
    }
  });

  it('probes the model endpoint, the store, the database, the sandbox backend and the authority', async () => {
    bench.model.requests.length = 0;
    expect(await probe('model:openai')).toMatchObject({ ok: true, error: null });
    expect(bench.model.requests.length).toBe(1);
    for (const name of ['store', 'database', 'sandbox', 'authority']) expect(await probe(name), name).toMatchObject({ name, ok: true, error: null });
  });

  it('answers ok:false with a timeout error when the target accepts and never answers', async () => {
    const answer = await probe('tracker:quiet');
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/timed out/);
    expect(connection(await snapshot(), 'tracker:quiet').lastError?.message).toBe(answer.error);
  });

  it('runs one probe per connection at a time: a concurrent probe shares the answer', async () => {
    // The host holds the request, so the second probe surely arrives while the first is in flight.
    bench.github.clearRequests();
    bench.github.setDown('hang');
    try {
      const [a, b] = await Promise.all([probe('tracker:shop'), probe('tracker:shop')]);
      expect(a).toEqual(b);
      expect(a).toMatchObject({ ok: false, error: expect.stringMatching(/timed out/) });
      expect(bench.github.requests).toHaveLength(1);
    } finally {
      bench.github.setDown(null);
    }
    expect((await probe('tracker:shop')).ok).toBe(true);
  });

  it('refuses an unknown name (404) and a malformed body (400)', async () => {
    const unknown = await call('POST', '/api/diagnostics/probe', root, { name: 'tracker:nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: expect.stringContaining('tracker:nowhere') });
    for (const payload of [{}, { name: 42 }, { name: '' }, { name: 'store', extra: 1 }]) {
      const res = await call('POST', '/api/diagnostics/probe', root, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json(), JSON.stringify(payload)).toEqual({ error: expect.any(String) });
    }
  });
});

describe('permissions', () => {
  it('lets a reader read the snapshot but not probe (403 naming diagnostics.probe); an operator probes', async () => {
    const reader = bench.idp.mint({ sub: 'reader-1', claims: { roles: ['reader'] } });
    expect((await call('GET', '/api/diagnostics/connections', reader)).statusCode).toBe(200);
    const refused = await call('POST', '/api/diagnostics/probe', reader, { name: 'store' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ missingPermissions: ['diagnostics.probe'] });
    const operator = bench.idp.mint({ sub: 'operator-1', claims: { roles: ['operator'] } });
    expect((await call('POST', '/api/diagnostics/probe', operator, { name: 'store' })).statusCode).toBe(200);
    const nobody = bench.idp.mint({ sub: 'nobody' });
    const none = await call('GET', '/api/diagnostics/connections', nobody);
    expect(none.statusCode).toBe(403);
    expect(none.json()).toMatchObject({ missingPermissions: ['diagnostics.read'] });
  });
});

describe('documented shapes', () => {
  type Documented = OpenApiDocument & { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };
  it('answers what /api/docs/openapi.json documents: the snapshot (with errors recorded), a probe that worked and one that failed, a 404', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/docs/openapi.json' })).json<Documented>();
    const violations = (path: string, method: string, status: number, body: unknown) => {
      const schema = document.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`no JSON schema documented for ${status} of ${method} ${path}`);
      return schemaViolations(document, schema, body);
    };
    const snap = await snapshot();
    expect(snap.connections.some((c) => c.lastError !== null)).toBe(true);
    expect(snap.webhooks.some((w) => w.lastDelivery !== null)).toBe(true);
    expect(violations('/api/diagnostics/connections', 'get', 200, snap)).toEqual([]);
    expect(violations('/api/diagnostics/probe', 'post', 200, await probe('store'))).toEqual([]);
    expect(violations('/api/diagnostics/probe', 'post', 200, await probe('tracker:quiet'))).toEqual([]);
    const unknown = await call('POST', '/api/diagnostics/probe', root, { name: 'nothing' });
    expect(violations('/api/diagnostics/probe', 'post', 404, unknown.json())).toEqual([]);
  });
});

describe('secrets', () => {
  it('never answers a configured secret (every body of this file scanned)', async () => {
    // One more snapshot after failures were recorded, then the scan.
    await snapshot();
    expect(bodies.length).toBeGreaterThan(20);
    for (const body of bodies) {
      for (const [what, secret] of Object.entries(SECRETS)) expect(body, what).not.toContain(secret);
      expect(body).not.toContain(Buffer.from(`bot@acme.example:${SECRETS.jira}`).toString('base64'));
      expect(body).not.toContain(Buffer.from(`:${SECRETS.ado}`).toString('base64'));
    }
  });
});
