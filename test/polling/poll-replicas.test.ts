import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerChild, startServerChild } from '../runs/support/server-child.js';
import { PollBench, eventually } from './support/poll-harness.js';

// Two server processes (src/main.ts, as replicas run it) share the database and the store; the
// `poller` lease decides which one polls. The GitHub stand-in sees who polls: the poller's
// User-Agent carries its replica's instance id (`<host>:<pid>:…`).

const LEASE_TTL_SECONDS = 2;
const INTERVAL_SECONDS = 10; // the configuration's minimum: the replicas run as configured
let bench: PollBench;
const children: ServerChild[] = [];
const logDir = mkdtempSync(join(tmpdir(), 'poll-replicas-'));

beforeAll(async () => {
  bench = await PollBench.create({ intervalSeconds: INTERVAL_SECONDS, queue: { lease_ttl_seconds: LEASE_TTL_SECONDS } });
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map((c) => c.kill('SIGKILL')));
  await bench?.cleanup();
});

/** The replica whose instance id is in the request's User-Agent. */
function sender(userAgent: unknown): ServerChild | undefined {
  return children.find((c) => String(userAgent).includes(`(${c.instancePrefix}`));
}

describe('polling with two replicas', () => {
  it('only the poller lease holder polls, and the survivor takes over polling after the holder is killed', async () => {
    children.push(await startServerChild(bench.env, bench.redis, bench.keyPrefix, join(logDir, 'a.log')));
    children.push(await startServerChild(bench.env, bench.redis, bench.keyPrefix, join(logDir, 'b.log')));
    const holder = await eventually(async () => {
      const token = await bench.redis.get(`${bench.keyPrefix}leader:poller`);
      return children.find((c) => token?.startsWith(c.instancePrefix));
    }, 15_000, 'the poller lease held');
    const survivor = children.find((c) => c !== holder) as ServerChild;

    // Over more than one interval (each replica would have polled at least once), only the holder did.
    const from = Date.now();
    await eventually(() => (bench.pollerRequests().length > 0 ? true : undefined), 10_000, 'a first poll');
    await new Promise((done) => setTimeout(done, INTERVAL_SECONDS * 1100));
    const sent = bench.pollerRequests();
    const reads = sent.map((r) => r.at);
    // Two cycles at least: the first at once on taking the lease, the next an interval (± 10 %) later.
    expect(Math.max(...reads) - Math.min(...reads)).toBeGreaterThanOrEqual(INTERVAL_SECONDS * 900);
    expect(new Set(sent.map((r) => sender(r.headers['user-agent'])?.pid))).toEqual(new Set([holder.pid]));
    expect(bench.pollerRequests(from).every((r) => sender(r.headers['user-agent']) === holder)).toBe(true);

    // The holder dies; a ticket labelled then is claimed by the survivor, which takes the lease and polls at once.
    await holder.kill('SIGKILL');
    const killedAt = Date.now();
    bench.tracker.trigger(201);
    await eventually(async () => ((await bench.ticketState('201')) !== null ? true : undefined), 20_000, 'the survivor to claim the ticket');
    // The lease's TTL, a renewal tick and one cycle: well within one interval.
    expect(Date.now() - killedAt).toBeLessThan(LEASE_TTL_SECONDS * 1000 + 4000);
    const after = bench.pollerRequests(killedAt + 100);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => sender(r.headers['user-agent']) === survivor)).toBe(true);
    expect(await bench.settledRuns('201', 1)).toEqual([expect.objectContaining({ state: 'succeeded' })]);
    expect(await bench.triggerLog('201')).toEqual([expect.objectContaining({ source: 'poll', outcome: 'Claimed' })]);
  }, 120_000);
});
