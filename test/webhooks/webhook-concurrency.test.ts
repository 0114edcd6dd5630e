import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PIPELINES, TEST_PROJECTS, type Wire, githubLabeled, githubWire } from './support/deliveries.js';
import { type WebhookBench, allJobCount, bootServer, createWebhookBench, jobsFor, triggerLogRows } from './support/webhook-harness.js';

/**
 * Concurrent deliveries over real HTTP to the listening server: exactly one claim and one queued
 * request per ticket, none lost, whatever the interleaving.
 */
let bench: WebhookBench;
let app: NestFastifyApplication;
let base: string;

async function post(wire: Wire): Promise<{ status: number; body: string }> {
  const response = await fetch(`${base}${wire.url}`, { method: 'POST', headers: wire.headers, body: wire.payload });
  return { status: response.status, body: await response.text() };
}

function tally(answers: { status: number; body: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) out[`${a.status} ${a.body}`] = (out[`${a.status} ${a.body}`] ?? 0) + 1;
  return out;
}

beforeAll(async () => {
  bench = await createWebhookBench({ projects: TEST_PROJECTS, pipelines: TEST_PIPELINES });
  app = await bootServer(bench.environment());
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  if (address === null || typeof address === 'string') throw new Error('server is not listening on a TCP port');
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
});

describe('concurrent deliveries', () => {
  it('the same trigger for one ticket 50 times at once: one 202, 49 Already claimed, one run, one queued request', async () => {
    const jobsBefore = await allJobCount(bench.queue);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post(githubWire('issues', githubLabeled(9001), { delivery: randomUUID() }))),
    );
    expect(tally(answers)).toEqual({ '202 Accepted: 9001 in gh-main': 1, '200 Already claimed: 9001': 49 });
    const { rows: runs } = await bench.db.query<{ id: string; state: string }>(
      "SELECT id, state FROM runs WHERE platform = 'platform-a' AND project = 'gh-main' AND ticket = '9001'");
    expect(runs).toHaveLength(1);
    expect(runs[0]!.state).toBe('queued');
    const { rows: tickets } = await bench.db.query<{ state: string; run_id: string }>(
      "SELECT state, run_id FROM tickets WHERE platform = 'platform-a' AND project = 'gh-main' AND ticket = '9001'");
    expect(tickets).toEqual([{ state: 'enqueued', run_id: runs[0]!.id }]);
    expect(await jobsFor(bench.queue, runs[0]!.id)).toBe(1);
    expect(await allJobCount(bench.queue)).toBe(jobsBefore + 1);
    const logged = await triggerLogRows(bench.db, { ticket: '9001' }, 50);
    expect(logged.filter((l) => l.outcome === 'Claimed')).toHaveLength(1);
    expect(logged.filter((l) => l.outcome === 'AlreadyClaimed')).toHaveLength(49);
  });

  it('the same delivery (id and bytes) 50 times at once: the work is done once, one 202, 49 Already claimed', async () => {
    const delivery = randomUUID();
    const wire = githubWire('issues', githubLabeled(9002), { delivery });
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(wire)));
    expect(tally(answers)).toEqual({ '202 Accepted: 9002 in gh-main': 1, '200 Already claimed: 9002': 49 });
    const { rows } = await bench.db.query<{ id: string }>("SELECT id FROM runs WHERE project = 'gh-main' AND ticket = '9002'");
    expect(rows).toHaveLength(1);
    expect(await jobsFor(bench.queue, rows[0]!.id)).toBe(1);
  });

  it('500 distinct tickets at once: 500 claims, 500 runs, 500 queued requests, none lost', async () => {
    const jobsBefore = await allJobCount(bench.queue);
    const numbers = Array.from({ length: 500 }, (_, i) => 10_000 + i);
    const answers = await Promise.all(numbers.map((n) => post(githubWire('issues', githubLabeled(n), { delivery: randomUUID() }))));
    const unexpected = answers.filter((a, i) => a.status !== 202 || a.body !== `Accepted: ${numbers[i]} in gh-main`);
    expect(unexpected).toEqual([]);

    const { rows: runs } = await bench.db.query<{ id: string; ticket: string; state: string }>(
      "SELECT id, ticket, state FROM runs WHERE project = 'gh-main' AND ticket::int BETWEEN 10000 AND 10499");
    expect(runs).toHaveLength(500);
    expect(new Set(runs.map((r) => r.ticket)).size).toBe(500);
    expect(runs.every((r) => r.state === 'queued')).toBe(true);
    const { rows: tickets } = await bench.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM tickets t JOIN runs r ON r.id = t.run_id WHERE t.project = 'gh-main' AND t.state = 'enqueued' AND t.ticket::int BETWEEN 10000 AND 10499");
    expect(tickets[0]!.n).toBe(500);

    expect(await allJobCount(bench.queue)).toBe(jobsBefore + 500);
    const jobs = await Promise.all(runs.map((r) => bench.queue.getJob(r.id)));
    expect(runs.filter((run, i) => jobs[i]?.data.ticket === run.ticket && jobs[i]?.data.project === 'gh-main')).toHaveLength(500);
  });
});
