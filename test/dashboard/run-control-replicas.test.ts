import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { LifecycleTrigger } from '../../src/tickets/lifecycle.js';
import { TicketLifecycleService } from '../../src/tickets/ticket-lifecycle.service.js';
import { bootClaimContext } from '../runs/support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';
import { sandboxProcessesOf } from '../runs/support/sandbox-processes.js';
import { type ServerChild, startServerChild } from '../runs/support/server-child.js';
import { createBareRepository } from '../stand-ins/git-repositories.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { testEnvironment } from '../support/test-env.js';

/**
 * Run control across replicas: two real server processes share PostgreSQL and the store, with
 * enforcement on against a real OIDC authority and the ticket on a GitHub stand-in. A run
 * executing in one process is cancelled through the other's HTTP API; the caller's name claim
 * is who cancelled, in the run's record, its events and the comment on the ticket.
 */
const CANCEL_WITHIN_MS = 10_000;
const TRACKER_TOKEN = 'ghp_runControlReplicas0001';
const OPERATOR = 'alice@acme.test';

interface Replica {
  child: ServerChild;
  url: string;
}

let idp: OidcAuthority;
let github: GitHubStandIn;
let setup: RunTestSetup;
let claims: INestApplicationContext;
let replicas: Replica[] = [];
let operator: string;
let reader: string;
const logDir = mkdtempSync(join(tmpdir(), 'run-control-replicas-'));
const repositories = mkdtempSync(join(tmpdir(), 'run-control-replicas-git-'));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}

async function startReplica(name: string): Promise<Replica> {
  const port = await freePort();
  const env = testEnvironment({
    ...setup.env.variables,
    PORT: String(port),
    SERVICE_AUTH_AUTHORITY: idp.authority,
    SERVICE_AUTH_AUDIENCE: idp.defaultAudience,
    SERVICE_AUTH_ENFORCE: 'true',
    SERVICE_AUTH_NAME_CLAIM: 'preferred_username',
  });
  const child = await startServerChild(env, setup.redis, setup.keyPrefix, join(logDir, `${name}.log`));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => ((await fetch(`${url}/health`).catch(() => null))?.status === 200 ? true : undefined), 30_000, `${name} to listen`);
  return { child, url };
}

async function call(replica: Replica, method: 'POST' | 'DELETE', path: string, token?: string): Promise<{ status: number; body: Record<string, any> | null }> {
  const res = await fetch(`${replica.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : (JSON.parse(text) as Record<string, any>) };
}

async function claim(ticket: string): Promise<string> {
  const outcome = await claims.get(ClaimService).claim({ platform: Platform.GitHub, project: 'shop', ticket }, 'slow');
  if (outcome.outcome !== 'Claimed') throw new Error(`claim of ${ticket}: ${outcome.outcome}`);
  return outcome.runId;
}

/** The replica executing the run (by the owner the run's record names), once its command runs, and the other one. */
async function executingAndOther(runId: string): Promise<[Replica, Replica]> {
  const owner = await eventually(async () => {
    const { rows } = await setup.db.query<{ owner: string | null }>(`SELECT owner FROM runs WHERE id = $1 AND state = 'running'`, [runId]);
    return rows[0]?.owner && sandboxProcessesOf(runId).length > 0 ? rows[0].owner : undefined;
  }, 30_000, `run ${runId} to run`);
  const executing = replicas.find((r) => owner.startsWith(r.child.instancePrefix));
  if (!executing) throw new Error(`run ${runId} is owned by ${owner}, neither replica`);
  return [executing, replicas.find((r) => r !== executing) as Replica];
}

async function processesGone(runId: string): Promise<number> {
  const from = Date.now();
  await eventually(() => (sandboxProcessesOf(runId).length === 0 ? true : undefined), CANCEL_WITHIN_MS, `run ${runId}'s processes to be gone`);
  return Date.now() - from;
}

const runOf = async (id: string) =>
  (await setup.db.query<{ state: string; error: string | null }>('SELECT state, error FROM runs WHERE id = $1', [id])).rows[0];
const eventsOf = async (id: string) =>
  (await setup.db.query<{ kind: string; text: string }>('SELECT kind, text FROM run_events WHERE run_id = $1 ORDER BY seq', [id])).rows;

beforeAll(async () => {
  idp = await OidcAuthority.start();
  github = await new GitHubStandIn(TRACKER_TOKEN).start();
  // The stand-in serves the repository's git as well, with the same token.
  const bare = join(repositories, 'shop-web.git');
  createBareRepository(bare, { defaultBranch: 'main' });
  github.mountGit('/acme/shop-web', { repository: bare, credential: { username: 'x-access-token', password: TRACKER_TOKEN } });
  setup = await createRunTestSetup({
    projects: {
      shop: {
        tracker: 'platform-a',
        repos: [{ name: 'shop-web', platform: 'platform-a', url: `${github.url}/acme/shop-web`, api_url: github.apiUrl, auth_secret: TRACKER_TOKEN }],
        platform_a_trigger: { trigger_statuses: ['ready-for-agent'], default_pipeline: 'slow' },
      },
    },
  });
  claims = await bootClaimContext(setup.env);
  replicas = [await startReplica('a'), await startReplica('b')];
  operator = idp.mint({ sub: 'user-alice', claims: { preferred_username: OPERATOR, roles: ['operator'] } });
  reader = idp.mint({ sub: 'user-rita', claims: { preferred_username: 'rita@acme.test', roles: ['reader'] } });
}, 180_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.child.kill('SIGKILL')));
  await claims?.close();
  await setup?.cleanup();
  await github?.stop();
  await idp?.stop();
  rmSync(repositories, { recursive: true, force: true });
});

describe('cancel across replicas, enforcement on', () => {
  it('a run executing on one replica, cancelled through the other: process group gone within 10 s, attributed, commented', async () => {
    github.addIssue(501, ['ready-for-agent']);
    const runId = await claim('501');
    const [executing, other] = await executingAndOther(runId);

    // Refused callers change nothing.
    expect((await call(other, 'POST', `/api/runs/${runId}/cancel`)).status).toBe(401);
    const denied = await call(other, 'POST', `/api/runs/${runId}/cancel`, reader);
    expect(denied.status).toBe(403);
    expect(denied.body?.missingPermissions).toEqual(['runs.control']);
    expect((await runOf(runId))?.state).toBe('running');

    const cancelled = await call(other, 'POST', `/api/runs/${runId}/cancel`, operator);
    expect(cancelled.status).toBe(202);
    expect(cancelled.body?.run).toMatchObject({ id: runId, state: 'cancelled', error: `cancelled by ${OPERATOR}` });
    expect(await processesGone(runId)).toBeLessThan(CANCEL_WITHIN_MS);
    expect((await setup.db.query(`SELECT state FROM tickets WHERE ticket = '501'`)).rows[0].state).toBe('failed');

    // The executing replica stopped it and wrote nothing over the cancel.
    await eventually(async () => ((await eventsOf(runId)).some((e) => e.kind === 'run-cancelled' && /commands killed/.test(e.text)) ? true : undefined),
      10_000, `${executing.child.pid} to record the stop`);
    expect(await runOf(runId)).toEqual({ state: 'cancelled', error: `cancelled by ${OPERATOR}` });
    expect(await eventsOf(runId)).toContainEqual({ kind: 'run-cancelled', text: `cancelled by ${OPERATOR}` });
    // Its sandbox had received the tree of the host's default branch (no `branch:` configured).
    expect(await eventsOf(runId)).toContainEqual({ kind: 'workspace', text: expect.stringMatching(/^shop-web: tree of branch main at [0-9a-f]{12}$/) });

    // The ticket shows it: `service:failed` and the failure comment naming who cancelled.
    const issue = github.issues.get(501)!;
    await eventually(() => (issue.comments.some((c) => c.body.includes(`cancelled by ${OPERATOR}`)) ? true : undefined), 20_000, 'the failure comment');
    await eventually(() => (issue.labels.includes('service:failed') ? true : undefined), 20_000, 'the failed label');
    expect(issue.comments).toHaveLength(1);
  }, 120_000);

  it('a run cancelled in the database with no message sent stops on its replica within 10 s', async () => {
    github.addIssue(502, ['ready-for-agent']);
    const runId = await claim('502');
    await executingAndOther(runId);
    // Only the cancel's transaction, from a process that tells nobody (as if the message was lost).
    const moved = await claims.get(TicketLifecycleService).transition(runId, LifecycleTrigger.Cancel, 'cancelled by a replica whose message was lost');
    expect(moved?.to).toBe('failed');
    expect(await processesGone(runId)).toBeLessThan(CANCEL_WITHIN_MS);
    expect((await runOf(runId))?.state).toBe('cancelled');
  }, 120_000);

  it('retry and delete are attributed and guarded as well', async () => {
    const old = (await setup.db.query<{ id: string }>(`SELECT id FROM runs WHERE ticket = '501'`)).rows[0]!.id;
    const [a, b] = replicas as [Replica, Replica];
    expect((await call(a, 'POST', `/api/runs/${old}/retry`, reader)).body?.missingPermissions).toEqual(['runs.control']);
    const retried = await call(a, 'POST', `/api/runs/${old}/retry`, operator);
    expect(retried.status).toBe(202);
    const fresh = retried.body?.run.id as string;
    expect(await eventsOf(fresh)).toContainEqual({ kind: 'run-retried', text: `retry of run ${old} by ${OPERATOR}` });
    await executingAndOther(fresh);
    expect((await call(b, 'POST', `/api/runs/${fresh}/cancel`, operator)).status).toBe(202);
    await processesGone(fresh);

    const denied = await call(b, 'DELETE', `/api/runs/${old}`, reader);
    expect(denied.status).toBe(403);
    expect(denied.body?.missingPermissions).toEqual(['runs.delete']);
    expect((await call(b, 'DELETE', `/api/runs/${old}`, operator)).status).toBe(204);
    expect(await runOf(old)).toBeUndefined();
  }, 120_000);
});
