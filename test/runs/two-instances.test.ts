import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootClaimContext } from './support/run-test-app.js';
import { SHORT_QUEUE, type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';
import { type ServerChild, startServerChild } from './support/server-child.js';

const LEASES = ['poller', 'housekeeping', 'capacity_queue'];

let setup: RunTestSetup;
let claims: INestApplicationContext;
let children: ServerChild[] = [];
const logDir = mkdtempSync(join(tmpdir(), 'runs-two-instances-'));

beforeAll(async () => {
  setup = await createRunTestSetup();
  claims = await bootClaimContext(setup.env);
}, 60_000);

afterEach(async () => {
  await Promise.all(children.map((c) => c.kill('SIGKILL')));
  children = [];
});

afterAll(async () => {
  await claims?.close();
  await setup?.cleanup();
});

async function startPair(): Promise<[ServerChild, ServerChild]> {
  const a = await startServerChild(setup.env, setup.redis, setup.keyPrefix, join(logDir, 'a.log'));
  children.push(a);
  const b = await startServerChild(setup.env, setup.redis, setup.keyPrefix, join(logDir, 'b.log'));
  children.push(b);
  return [a, b];
}

/** Which child holds each lease (by the instance id in the lease's token). */
async function holders(): Promise<Record<string, number | null>> {
  const out: Record<string, number | null> = {};
  for (const name of LEASES) {
    const token = await setup.redis.get(`${setup.keyPrefix}leader:${name}`);
    out[name] = children.find((c) => token?.startsWith(c.instancePrefix))?.pid ?? null;
  }
  return out;
}

describe('two server instances sharing PostgreSQL and the store', () => {
  it('only one holds each lease, and the other takes over after the holder is killed', async () => {
    const [a, b] = await startPair();
    const first = await eventually(async () => {
      const h = await holders();
      return LEASES.every((n) => h[n] !== null) ? h : undefined;
    }, 15_000, 'every lease held');
    // A lease key holds one token: one holder per lease, and it is one of the two instances.
    const holder = children.find((c) => c.pid === first.housekeeping) as ServerChild;
    const other = holder === a ? b : a;
    await holder.kill('SIGKILL');
    const started = Date.now();
    const after = await eventually(async () => {
      const h = await holders();
      return LEASES.every((n) => h[n] === other.pid) ? h : undefined;
    }, 15_000, 'the survivor to take over every lease');
    expect(Object.values(after)).toEqual([other.pid, other.pid, other.pid]);
    // Within the lease TTL plus a renewal tick or two.
    expect(Date.now() - started).toBeLessThan(SHORT_QUEUE.lease_ttl_seconds * 1000 + 3000);
  }, 120_000);

  it('killing the instance running a pipeline makes its ticket Pending again within the TTL plus a scan', async () => {
    await startPair();
    const outcome = await claims.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket: 'crash-1' }, 'slow');
    expect(outcome.outcome).toBe('Claimed');
    const runId = outcome.outcome === 'Claimed' ? outcome.runId : '';
    const owner = await eventually(async () => {
      const { rows } = await setup.db.query(
        `SELECT r.owner FROM runs r JOIN tickets t ON t.run_id = r.id WHERE r.id = $1 AND t.state = 'in_progress'`, [runId]);
      return rows[0]?.owner as string | undefined;
    }, 20_000, 'the ticket in progress');
    const running = children.find((c) => owner.startsWith(c.instancePrefix)) as ServerChild;
    expect(running).toBeDefined();
    await running.kill('SIGKILL');
    const killedAt = Date.now();
    await eventually(async () => {
      const { rows } = await setup.db.query(`SELECT state FROM tickets WHERE ticket = 'crash-1'`);
      return rows[0]?.state === 'pending' ? true : undefined;
    }, 30_000, 'the ticket to revert to pending');
    const elapsed = Date.now() - killedAt;
    // Heartbeat TTL, plus about one stale scan (a minute by default, shortened here), plus slack.
    expect(elapsed).toBeLessThan((SHORT_QUEUE.heartbeat_ttl_seconds + SHORT_QUEUE.stale_scan_interval_seconds) * 1000 + 6000);
    expect(elapsed).toBeGreaterThanOrEqual(SHORT_QUEUE.heartbeat_ttl_seconds * 1000 - 1500);
    const run = (await setup.db.query('SELECT state, error FROM runs WHERE id = $1', [runId])).rows[0];
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(/no heartbeat/);
  }, 120_000);
});
