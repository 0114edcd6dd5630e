import type { INestApplicationContext } from '@nestjs/common';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseService } from '../../src/database/database.service.js';
import { Platform } from '../../src/platforms/platform.js';
import { LifecycleTrigger } from '../../src/tickets/lifecycle.js';
import type { TicketKey } from '../../src/tickets/ticket-key.js';
import { type ClaimedTicket, TicketLifecycleService } from '../../src/tickets/ticket-lifecycle.service.js';
import { bootClaimContext } from './support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup } from './support/run-test-setup.js';

/**
 * Undoing a claim whose push reported an error (ClaimService): the push may have reached the
 * queue after all and its run started, so the undo applies only to an untouched claim.
 */
let setup: RunTestSetup;
let context: INestApplicationContext;
let lifecycle: TicketLifecycleService;

beforeAll(async () => {
  setup = await createRunTestSetup();
  context = await bootClaimContext(setup.env);
  lifecycle = context.get(TicketLifecycleService);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await setup?.cleanup();
});

const key = (ticket: string): TicketKey => ({ platform: Platform.GitHub, project: 'solo', ticket });

async function claim(ticket: string): Promise<ClaimedTicket> {
  const result = await lifecycle.claim(key(ticket), 'instant');
  if (result.outcome !== 'Claimed') throw new Error(`${ticket} was not claimed`);
  return result;
}

async function ticketRow(ticket: string) {
  const { rows } = await setup.db.query<{ state: string; run_id: string | null }>(
    'SELECT state, run_id FROM tickets WHERE platform = $1 AND project = $2 AND ticket = $3', [Platform.GitHub, 'solo', ticket]);
  return rows[0] ?? null;
}

async function runStates(ticket: string): Promise<Record<string, string>> {
  const { rows } = await setup.db.query<{ id: string; state: string }>('SELECT id, state FROM runs WHERE ticket = $1', [ticket]);
  return Object.fromEntries(rows.map((r) => [r.id, r.state]));
}

describe('undoClaim', () => {
  it('undoes an untouched claim: its run goes, and a ticket first seen by the claim goes with it', async () => {
    const claimed = await claim('undo-1');
    expect(await lifecycle.undoClaim(key('undo-1'), claimed)).toBe(true);
    expect(await ticketRow('undo-1')).toBeNull();
    expect(await runStates('undo-1')).toEqual({});
  });

  it('keeps a claim whose run has started (its push reached the queue after all): no second live run can follow', async () => {
    const claimed = await claim('undo-2');
    expect(await lifecycle.transition(claimed.runId, LifecycleTrigger.Dequeue)).not.toBeNull();
    expect(await lifecycle.undoClaim(key('undo-2'), claimed)).toBe(false);
    expect(await ticketRow('undo-2')).toEqual({ state: 'in_progress', run_id: claimed.runId });
    expect(await runStates('undo-2')).toEqual({ [claimed.runId]: 'running' });
    expect((await lifecycle.claim(key('undo-2'), 'instant')).outcome).toBe('AlreadyClaimed');
  });

  it('returns a ticket that had ended to where it was, with its earlier run', async () => {
    const first = await claim('undo-3');
    await lifecycle.transition(first.runId, LifecycleTrigger.Dequeue);
    await lifecycle.transition(first.runId, LifecycleTrigger.Succeed);
    const second = await claim('undo-3');
    expect(second.previous).toEqual({ state: 'done', runId: first.runId });
    expect(await lifecycle.undoClaim(key('undo-3'), second)).toBe(true);
    expect(await ticketRow('undo-3')).toEqual({ state: 'done', run_id: first.runId });
    expect(await runStates('undo-3')).toEqual({ [first.runId]: 'succeeded' });
  });
});

describe('claim without the claim lock', () => {
  it('lets exactly one of many concurrent claims of a ticket win; the others are AlreadyClaimed, none fails', async () => {
    // The store's claim lock normally serialises these; the database must decide alone when it
    // does not (a lock expired mid-claim): the row lock and the live-run unique index.
    const results = await Promise.all(Array.from({ length: 12 }, () => lifecycle.claim(key('race-1'), 'instant')));
    const claimed = results.filter((r) => r.outcome === 'Claimed');
    expect(claimed).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'AlreadyClaimed')).toHaveLength(11);
    expect(Object.values(await runStates('race-1'))).toEqual(['queued']);
    expect(await ticketRow('race-1')).toEqual({ state: 'enqueued', run_id: (claimed[0] as ClaimedTicket).runId });
  });

  it('answers AlreadyClaimed when the live-run unique index, not the ticket row, stops the claim', async () => {
    // Another writer's live run, not yet committed: the claim's insert waits on the unique
    // index, then fails with a unique violation once that run commits.
    const other = await setup.db.connect();
    try {
      await other.query('BEGIN');
      await other.query("INSERT INTO runs (id, platform, project, ticket, pipeline, state) VALUES (gen_random_uuid(), $1, 'solo', 'race-2', 'instant', 'queued')", [Platform.GitHub]);
      const claiming = lifecycle.claim(key('race-2'), 'instant');
      await expect.poll(async () => (await setup.db.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n, { timeout: 10_000 }).toBe(1);
      await other.query('COMMIT');
      expect(await claiming).toEqual({ outcome: 'AlreadyClaimed', state: 'enqueued' });
    } finally {
      other.release();
    }
    expect(await ticketRow('race-2')).toBeNull();
  });
});

describe('the claim statement', () => {
  it('runs unnamed from the first time its prepared statement was lost (a pooler in transaction mode), without losing the claim', async () => {
    const pool = (context.get(DatabaseService).dataSource.driver as unknown as { master: pg.Pool }).master;
    await claim('prepared-1'); // prepares ticket_claim on the connection the pool hands out next
    // What PgBouncer before 1.21 does in transaction mode: the next call lands on a server
    // connection that never saw the PREPARE. The pool hands out the connection released last.
    const connection = await pool.connect();
    await connection.query('DEALLOCATE ALL');
    connection.release();
    const claimed = await claim('prepared-2');
    expect(await ticketRow('prepared-2')).toEqual({ state: 'enqueued', run_id: claimed.runId });
    await claim('prepared-3');
    expect(Object.values(await runStates('prepared-3'))).toEqual(['queued']);
  });
});
