import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingsBody, HealthBody } from '../support/response-bodies.js';
import { getJson } from '../support/test-app.js';
import { githubLabeled, githubWire } from '../webhooks/support/deliveries.js';
import { sendWire } from '../webhooks/support/webhook-harness.js';
import { BROKEN, PollBench, eventually, isPollerRequest } from './support/poll-harness.js';

// What polling does beside the lifecycle (poll-lifecycle.test.ts), on GitHub: rejections, a
// webhook and a poll racing for one ticket, and the faults of a tracker that is down or refuses
// the credentials. The real server polls the GitHub stand-in; nothing of ours is mocked.

let bench: PollBench;
let app: NestFastifyApplication;

beforeAll(async () => {
  bench = await PollBench.create();
  app = await bench.boot();
  await bench.cycles(app);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
});

async function pollerHealth() {
  const { body } = await getJson<HealthBody>(app, '/health');
  return body.subsystems.find((s) => s.name === 'poller');
}

async function pollerFindings() {
  const { body } = await getJson<FindingsBody>(app, '/api/config/findings');
  return body.findings.filter((f) => f.subsystem === 'poller');
}

describe('polling GitHub issues', () => {
  it('records a label mapped to no pipeline once as Rejected, not on every poll', async () => {
    bench.tracker.mapLabel(103, true, BROKEN);
    const [rejected] = await bench.triggerLog('103');
    expect(rejected).toEqual({ source: 'poll', event: 'poll', delivery_id: null, outcome: 'Rejected', reason: 'UnknownPipeline', status_code: 0 });
    const sweeps = [];
    for (let i = 0; i < 5; i++) sweeps.push((await bench.cycles(app)).fullSweep);
    expect(sweeps).toContain(true); // a full sweep (every 3 s here) shows the unchanged ticket again
    expect(await bench.triggerLog('103')).toHaveLength(1);
    expect(await bench.ticketState('103')).toBeNull();
  }, 40_000);

  it('claims a ticket seen by a webhook and a poll in the same moment once', async () => {
    const repoUrl = `${bench.gh.url}/acme/shop-web`;
    bench.gh.addIssue(104, []);
    let delivered: ReturnType<typeof sendWire> | null = null;
    // The delivery is sent while the poll that sees the label is being answered.
    bench.gh.beforeNext((r) => isPollerRequest(r) && r.path === '/repos/acme/shop-web/issues', () => {
      delivered = sendWire(app, githubWire('issues', githubLabeled(104, { repoUrl, label: bench.tracker.ready }), { delivery: 'same-moment-104' }));
    });
    bench.tracker.trigger(104);
    await eventually(() => delivered ?? undefined, 10_000, 'the delivery to be sent');
    const reply = await (delivered as unknown as ReturnType<typeof sendWire>);
    expect([202, 200]).toContain(reply.status);
    await bench.settledRuns('104', 1);
    await bench.cycles(app, 3);
    expect(await bench.runs('104')).toHaveLength(1);
    // Two interleavings are both right: the poll reaches the claim and loses it (its row says
    // AlreadyClaimed), or it reads the ticket's record after the webhook's claim committed and
    // leaves a live run alone without a row. Either way exactly one source claimed it.
    const log = await bench.triggerLog('104', 1);
    expect(log.filter((r) => r.outcome === 'Claimed')).toHaveLength(1);
    expect(log.filter((r) => r.outcome !== 'Claimed').map((r) => r.outcome)).toEqual(log.length === 2 ? ['AlreadyClaimed'] : []);
    expect(log.length).toBeLessThanOrEqual(2);
    expect(log.map((r) => r.source)).toContain('webhook');
    if (log.length === 2) expect(log.map((r) => r.source).sort()).toEqual(['poll', 'webhook']);
  }, 40_000);

  it('a tracker outage degrades the poller and names the project, and it recovers when the tracker answers', async () => {
    bench.gh.setDown('unavailable');
    await eventually(async () => ((await pollerHealth())?.state === 'degraded' ? true : undefined), 10_000, 'the poller degraded');
    expect((await pollerHealth())?.reason).toMatch(/^leader; polling 1 project\(s\); failing: shop: \d+ failed poll\(s\), retrying in \d+\.\d s: .*503/);
    const [found] = await eventually(async () => {
      const f = await pollerFindings();
      return f.length > 0 ? f : undefined;
    }, 5000, 'a poller finding');
    expect(found).toMatchObject({ severity: 'blocking', project: 'shop', trigger: 'platform_a_trigger', field: 'projects.shop.platform_a_trigger.polling' });
    expect(found?.reason).toMatch(/down, busy or unreachable/);
    // Labelled while the tracker is down: claimed once it answers again (the cursor did not move).
    bench.tracker.trigger(106);
    const failing = bench.pollerRequests().length;
    await eventually(() => (bench.pollerRequests().length > failing ? true : undefined), 5000, 'a retry that fails too');
    bench.gh.setDown(null);
    await eventually(async () => ((await pollerHealth())?.state === 'up' ? true : undefined), 10_000, 'the poller up again');
    expect(await pollerFindings()).toEqual([]);
    await bench.settledRuns('106', 1);

    // Credentials refused: a blocking finding saying so, cleared once the tracker accepts them again.
    bench.gh.failNext(3, { status: 401, body: { message: 'Bad credentials' }, match: isPollerRequest });
    const [refused] = await eventually(async () => {
      const f = await pollerFindings();
      return f.length > 0 ? f : undefined;
    }, 10_000, 'a credentials finding');
    expect(refused?.reason).toMatch(/refuses the credentials \(HTTP 401\)/);
    await eventually(async () => ((await pollerFindings()).length === 0 ? true : undefined), 15_000, 'the finding to clear');
    expect((await pollerHealth())?.state).toBe('up');
  }, 60_000);
});
