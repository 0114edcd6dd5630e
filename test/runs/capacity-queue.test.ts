import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootRunApp } from './support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';


let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  // Room for two sandboxes: one run of `pair` (two repositories) or two runs of `solo`.
  setup = await createRunTestSetup({
    capacity: { cpu: 2, memory: '4Gi' },
    projects: (remotes) => {
      const repo = (name: string, prefix: string) => remotes.entry(name, 'platform-a', { path_prefix: prefix });
      return {
        solo: { tracker: 'platform-a', repos: [repo('solo-web', '')] },
        pair: { tracker: 'platform-a', repos: [repo('pair-web', 'web/'), repo('pair-api', 'api/')] },
      };
    },
  });
  app = await bootRunApp(setup.env);
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

async function claim(project: string, ticket: string, pipeline: string): Promise<string> {
  const outcome = await app.get(ClaimService).claim({ platform: Platform.GitHub, project, ticket }, pipeline);
  if (outcome.outcome !== 'Claimed') throw new Error(`claim of ${ticket}: ${outcome.outcome}`);
  return outcome.runId;
}

interface Row { id: string; state: string; started_at: Date | null; finished_at: Date | null }

async function runs(ids: string[]): Promise<Row[]> {
  const { rows } = await setup.db.query<Row>('SELECT id, state, started_at, finished_at FROM runs WHERE id = ANY($1::uuid[])', [ids]);
  return ids.map((id) => rows.find((r) => r.id === id) as Row);
}

async function allEnded(ids: string[]): Promise<Row[]> {
  return eventually(async () => {
    const rows = await runs(ids);
    return rows.every((r) => r.state === 'succeeded') ? rows : undefined;
  }, 25_000, 'every run to succeed');
}

describe('capacity queue', () => {
  it('with capacity for one run, three claims queue two in FIFO order and start them one by one', async () => {
    const ids = [await claim('pair', 'c1', 'short'), await claim('pair', 'c2', 'short'), await claim('pair', 'c3', 'short')];
    // While the first runs, the other two are visible as queued (tickets Enqueued).
    const snapshot = await eventually(async () => {
      const rows = await runs(ids);
      return rows[0]?.state === 'running' ? rows : undefined;
    }, 10_000, 'the first run to start');
    expect(snapshot.map((r) => r.state)).toEqual(['running', 'queued', 'queued']);
    const tickets = (await setup.db.query('SELECT ticket, state FROM tickets WHERE ticket IN ($1, $2) ORDER BY ticket', ['c2', 'c3'])).rows;
    expect(tickets).toEqual([{ ticket: 'c2', state: 'enqueued' }, { ticket: 'c3', state: 'enqueued' }]);

    const ended = await allEnded(ids);
    for (let i = 1; i < ended.length; i++) {
      // Strictly one after the other, in claim order.
      expect(ended[i]!.started_at!.getTime()).toBeGreaterThanOrEqual(ended[i - 1]!.finished_at!.getTime());
    }
  });

  it('lets nothing overtake the head, not even a run that would fit', async () => {
    const first = await claim('solo', 'o1', 'medium'); // holds one of the two sandboxes for ~3 s
    await eventually(async () => ((await runs([first]))[0]?.state === 'running' ? true : undefined), 10_000, 'first running');
    const head = await claim('pair', 'o2', 'short'); // needs both: waits for the first
    const small = await claim('solo', 'o3', 'short'); // would fit beside the first, but must wait behind the head
    await new Promise((done) => setTimeout(done, 1000));
    expect((await runs([first, head, small])).map((r) => r.state)).toEqual(['running', 'queued', 'queued']);
    const [a, b, c] = await allEnded([first, head, small]);
    expect(b!.started_at!.getTime()).toBeGreaterThanOrEqual(a!.finished_at!.getTime());
    expect(c!.started_at!.getTime()).toBeGreaterThanOrEqual(b!.started_at!.getTime());
  });

  it('frees the capacity of a failed run', async () => {
    const failed = await claim('pair', 'f1', 'broken');
    const next = await claim('pair', 'f2', 'instant');
    const rows = await eventually(async () => {
      const r = await runs([failed, next]);
      return r[0]?.state === 'failed' && r[1]?.state === 'succeeded' ? r : undefined;
    }, 15_000, 'the failed run to release capacity for the next');
    expect(rows[1]!.started_at!.getTime()).toBeGreaterThanOrEqual(rows[0]!.finished_at!.getTime());
  });
});
