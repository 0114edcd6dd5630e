import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server-process.js';
import { TEST_PIPELINES, TEST_PROJECTS, githubCommented, githubWire } from '../webhooks/support/deliveries.js';
import { type WebhookBench, bootServer, createWebhookBench, sendWire, ticketRow, triggerLogRows } from '../webhooks/support/webhook-harness.js';

/**
 * An answer while the store is down (spec "Errors": an answer-carrying webhook answers 503
 * `store_unavailable`, logged skipped/store-unavailable, and the platform's redelivery is taken
 * once the store is back); the dashboard's answer route is a 503 too. Nothing is written before
 * the store is known to be up: the run stays parked, its question open.
 */
let bench: WebhookBench;

beforeAll(async () => {
  bench = await createWebhookBench({ projects: TEST_PROJECTS, pipelines: TEST_PIPELINES });
});

afterAll(async () => {
  await bench?.cleanup();
});

/** A ticket of gh-main parked on a run that asked (as the executor leaves it). */
async function parkedTicket(ticket: string): Promise<string> {
  const runId = randomUUID();
  await bench.db.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state, started_at, error)
    VALUES ($1, 'platform-a', 'gh-main', $2, 'code', 'parked', now(), 'the agent handed the ticket back (question): which one?')`, [runId, ticket]);
  await bench.db.query(`INSERT INTO tickets (platform, project, ticket, state, pipeline, run_id) VALUES ('platform-a', 'gh-main', $1, 'parked', 'code', $2)`, [ticket, runId]);
  await bench.db.query(`INSERT INTO run_questions (run_id, platform, project, ticket, kind, question) VALUES ($1, 'platform-a', 'gh-main', $2, 'question', 'which one?')`, [runId, ticket]);
  return runId;
}

describe('answers while the store is down', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await bootServer(bench.environment({ KVSTORE_URL: `redis://127.0.0.1:${await freePort()}/0` }), { store: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a ticket comment answers 503 store_unavailable, logged skipped; the redelivery resumes the ticket once the store is up', async () => {
    const runId = await parkedTicket('701');
    const wire = githubWire('issue_comment', githubCommented(701), { delivery: randomUUID() });
    expect(await sendWire(app, wire)).toMatchObject({ status: 503, body: 'store_unavailable' });
    const [log] = await triggerLogRows(bench.db, { platform: 'platform-a', ticket: '701' });
    expect(log).toMatchObject({ project: 'gh-main', event: 'issue_comment', outcome: 'skipped', reason: 'store-unavailable', status_code: 503 });
    expect(await ticketRow(bench.db, 'platform-a', 'gh-main', '701')).toMatchObject({ state: 'parked', run_id: runId });
    const { rows } = await bench.db.query('SELECT answer, answered_at FROM run_questions WHERE run_id = $1', [runId]);
    expect(rows[0]).toEqual({ answer: null, answered_at: null });

    const healthy = await bootServer(bench.environment());
    try {
      expect(await sendWire(healthy, wire)).toMatchObject({ status: 202, body: 'Accepted: 701 in gh-main' });
      const { rows: answered } = await bench.db.query('SELECT answered_by, answer_source, resumed_run_id FROM run_questions WHERE run_id = $1', [runId]);
      expect(answered[0]).toMatchObject({ answered_by: 'Codertocat', answer_source: 'ticket-comment' });
      const ticket = await ticketRow(bench.db, 'platform-a', 'gh-main', '701');
      expect(ticket?.run_id).toBe(answered[0]!['resumed_run_id']);
    } finally {
      await healthy.close();
    }
  });

  it('the dashboard answer is a 503 and changes nothing', async () => {
    const runId = await parkedTicket('702');
    const res = await app.inject({ method: 'POST', url: `/api/runs/${runId}/answer`, payload: { answer: 'the first one' } });
    expect(res.statusCode).toBe(503);
    expect(res.json<{ error: string }>().error).toContain('store');
    expect(await ticketRow(bench.db, 'platform-a', 'gh-main', '702')).toMatchObject({ state: 'parked', run_id: runId });
  });
});
