import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Socket, io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import type { Run } from '../../src/runs/resource/run-resource.js';
import { InstanceIdentity } from '../../src/store/instance-identity.service.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { testEnvironment } from '../support/test-env.js';
import { bootRunApp } from '../runs/support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';

/** What one hub client heard. */
interface Client {
  socket: Socket;
  changes: Run[];
  events: { run: string; seq?: unknown; kind?: string; sandbox?: unknown; text?: string }[];
  errors: { missingPermissions?: string[]; method?: string }[];
}

const FINAL = ['succeeded', 'failed', 'cancelled'];

/** The run's states in the order heard, repeats folded (a step or sandbox change repeats its state). */
const statesOf = (client: Client, runId: string): string[] =>
  client.changes.filter((r) => r.id === runId).map((r) => r.state).filter((s, i, all) => i === 0 || all[i - 1] !== s);
const lastOf = (client: Client, runId: string): Run | undefined => client.changes.filter((r) => r.id === runId).at(-1);

/**
 * `run.changed {run}` (contract "The live hub"): two replicas sharing PostgreSQL and the store,
 * each listening with enforcement on, real runs through the capacity queue (capacity for one run
 * at a time, so the second run is visibly queued), real Socket.IO clients.
 */
describe('hub run.changed across two replicas', () => {
  let idp: OidcAuthority;
  let setup: RunTestSetup;
  let a: NestFastifyApplication;
  let b: NestFastifyApplication;
  const clients: Client[] = [];
  let subA: Client;
  let subB: Client;
  let watcher: Client;
  let both: Client;
  let denied: Client;
  let first: string;
  let second: string;

  const connect = async (url: string, roles: string[]): Promise<Client> => {
    const socket = io(url, {
      path: '/hub/jobs', transports: ['websocket'], reconnection: false, forceNew: true, timeout: 5_000,
      auth: { token: idp.mint({ claims: roles.length > 0 ? { roles } : {} }) },
    });
    const client: Client = { socket, changes: [], events: [], errors: [] };
    socket.on('run.changed', (body: { run: Run }) => client.changes.push(body.run));
    socket.on('run.event', (body: { run: string }) => client.events.push(body));
    socket.on('error', (body: Client['errors'][number]) => client.errors.push(body));
    clients.push(client);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    return client;
  };
  const call = (client: Client, method: string, body: unknown = {}): Promise<unknown> =>
    client.socket.timeout(5_000).emitWithAck(method, body).catch(() => null);
  const claim = async (ticket: string, pipeline: string): Promise<string> => {
    const outcome = await a.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket }, pipeline);
    if (outcome.outcome !== 'Claimed') throw new Error(`claim of ${ticket}: ${outcome.outcome}`);
    return outcome.runId;
  };

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    setup = await createRunTestSetup({
      capacity: { cpu: 1, memory: '2Gi' },
      pipelines: { 'two-steps': { commands: ['sleep 1', 'sleep 2'], timeout_seconds: 60 } },
    });
    const env = testEnvironment({
      ...setup.env.variables,
      SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
    });
    [a, b] = await Promise.all([bootRunApp(env), bootRunApp(env)]);
    await a.listen(0, '127.0.0.1');
    await b.listen(0, '127.0.0.1');
    const [urlA, urlB] = [await a.getUrl(), await b.getUrl()];

    [subA, subB, watcher, both, denied] = await Promise.all([
      connect(urlA, ['reader']), connect(urlB, ['reader']), connect(urlA, ['reader']), connect(urlA, ['reader']), connect(urlA, []),
    ]);
    for (const c of [subA, subB, both]) expect(await call(c, 'runs.subscribe')).toEqual({ ok: true });
    await call(denied, 'runs.subscribe'); // refused: no runs.read
    // Whatever else lands on the stream (anyone with the store can write to it) is skipped.
    const stream = `${setup.keyPrefix}feed:run-changes`;
    await setup.redis.xadd(stream, '*', 'id', 'garbage', 'run', '{not json');
    await setup.redis.xadd(stream, '*', 'id', 'mismatch', 'run', JSON.stringify({ id: 'someone-else' }));
    await setup.redis.xadd(stream, '*', 'run', JSON.stringify({ id: 'no-id-field' }));
    await setup.redis.xadd(stream, '*', 'id', 'null', 'run', 'null');

    // The first run holds the only capacity for ~3 s, so the second waits `queued` in plain sight.
    first = await claim('live-1', 'two-steps');
    // Long enough running to be heard as running: a run that ends within the coalescing window
    // is heard as queued, then ended.
    second = await claim('live-2', 'short');
    expect(await call(watcher, 'run.watch', { runId: second })).toEqual({ ok: true });
    expect(await call(both, 'run.watch', { runId: second })).toEqual({ ok: true });
    await call(denied, 'run.watch', { runId: second }); // refused: no runs.watch

    await eventually(() => ([subA, subB].every((c) => [first, second].every((id) => FINAL.includes(lastOf(c, id)?.state ?? '')))
      ? true : undefined), 90_000, 'both runs to end, as heard by the subscribers of both replicas');
    // Stragglers (a duplicate would arrive with the rest) get a moment to land.
    await new Promise((r) => setTimeout(r, 1_000));
  }, 150_000);

  afterAll(async () => {
    for (const c of clients) c.socket.disconnect();
    await Promise.all([a?.close(), b?.close()]);
    await setup?.cleanup();
    await idp?.stop();
  });

  it('a runs.subscribe client hears each state of a real run, the last one the full Run with steps and sandboxes', async () => {
    expect(statesOf(subA, second)).toEqual(['queued', 'running', 'succeeded']);
    const last = lastOf(subA, second)!;
    const token = idp.mint({ claims: { roles: ['reader'] } });
    const res = await a.inject({ method: 'GET', url: `/api/runs/${second}`, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    expect(last).toEqual(res.json());
    expect(last.steps).toEqual([expect.objectContaining({ name: 'sleep 1', state: 'succeeded' })]);
    expect(last.sandboxes).toEqual([expect.objectContaining({ state: 'destroyed' })]);
    expect(last.finishedAt).not.toBeNull();
  });

  it('step and sandbox changes of a running run are heard while it runs', () => {
    // A second into the first run its first step ends and its second starts: only the step
    // notes announce that (no state transition happens then).
    const during = subA.changes.filter((r) => r.id === first && r.state === 'running');
    expect(during.some((r) => r.sandboxes[0]?.state === 'ready' && r.steps.map((s) => s.state).join() === 'succeeded,running')).toBe(true);
    expect(lastOf(subA, first)?.steps.map((s) => s.state)).toEqual(['succeeded', 'succeeded']);
  });

  it('a client on the other replica hears the changes of a run executed by the first', async () => {
    const owner = (await setup.db.query('SELECT owner FROM runs WHERE id = $1', [second])).rows[0]?.owner as string;
    const ids = [a.get(InstanceIdentity).id, b.get(InstanceIdentity).id];
    expect(ids).toContain(owner);
    const elsewhere = owner === ids[0] ? subB : subA;
    expect(statesOf(elsewhere, second)).toEqual(['queued', 'running', 'succeeded']);
    expect(lastOf(elsewhere, second)).toEqual(lastOf(owner === ids[0] ? subA : subB, second));
  });

  it('run.event carries each event as the API lists it (seq a number, sandbox null when none); a ticket transition has seq null', async () => {
    const token = idp.mint({ claims: { roles: ['reader'] } });
    const res = await a.inject({ method: 'GET', url: `/api/runs/${second}/events`, headers: { authorization: `Bearer ${token}` } });
    const stored = res.json<{ items: { seq: number; kind: string; sandbox: string | null; text: string }[] }>().items;
    const heard = watcher.events.filter((e) => e.run === second);
    const events = heard.filter((e) => e.seq !== null);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      const same = stored.find((s) => s.seq === e.seq);
      expect(same, `a stored event with seq ${JSON.stringify(e.seq)}`).toBeDefined();
      expect({ kind: e.kind, sandbox: e.sandbox, text: e.text }).toEqual({ kind: same!.kind, sandbox: same!.sandbox, text: same!.text });
    }
    expect(heard.filter((e) => e.seq === null).every((e) => e.kind === 'state')).toBe(true);
  });

  it('a watcher of one run hears that run and not another', () => {
    expect(subA.changes.some((r) => r.id === first)).toBe(true); // the other run's changes were published
    expect(watcher.changes.length).toBeGreaterThan(0);
    expect(watcher.changes.every((r) => r.id === second)).toBe(true);
    expect(lastOf(watcher, second)?.state).toBe('succeeded');
  });

  it('malformed entries on the stream are skipped, and the relay carries on', () => {
    for (const c of [subA, subB, both]) expect(new Set(c.changes.map((r) => r.id))).toEqual(new Set([first, second]));
  });

  it('a client both subscribed and watching hears each change once', () => {
    expect(both.changes.map((r) => `${r.id}:${r.state}:${r.steps.length}`)).toEqual(subA.changes.map((r) => `${r.id}:${r.state}:${r.steps.length}`));
  });

  it('with enforcement on, a client without runs.read or runs.watch is refused and hears nothing', () => {
    expect(denied.errors.map((e) => [e.method, e.missingPermissions])).toEqual([['runs.subscribe', ['runs.read']], ['run.watch', ['runs.watch']]]);
    expect(denied.changes).toEqual([]);
    expect(denied.events).toEqual([]);
  });
});
