import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthBody } from '../support/response-bodies.js';
import { getJson } from '../support/test-app.js';
import type { TrackerKind } from './support/polled-trackers.js';
import { FAST_POLLING, PollBench, eventually } from './support/poll-harness.js';

// The polling ingress end to end on each of the four trackers: the real server (AppModule) polls
// the tracker's stand-in (real query semantics: labels, WIQL, JQL, paging, `updated` times and
// history), claims through the real claim and runs the pipeline. Nothing of ours is mocked.

const INTERVAL = FAST_POLLING.intervalMs as number;

describe.each<TrackerKind>(['github', 'gitlab', 'azure-devops', 'jira'])('polling %s', (kind) => {
  let bench: PollBench;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    bench = await PollBench.create({ tracker: kind });
    app = await bench.boot();
    await bench.cycles(app);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await bench?.cleanup();
  });

  it('claims a ticket moved into a trigger status within one interval, and runs it', async () => {
    const { body } = await getJson<HealthBody>(app, '/health');
    expect(body.subsystems.find((s) => s.name === 'poller')).toMatchObject({ state: 'up', reason: 'leader; polling 1 project(s)' });
    const ticket = bench.tracker.id(11);
    bench.tracker.trigger(11);
    const movedAt = Date.now();
    await eventually(async () => ((await bench.ticketState(ticket)) !== null ? true : undefined), 10_000, 'the claim');
    // One interval (± 10 %) and the cycle's own work.
    expect(Date.now() - movedAt).toBeLessThan(INTERVAL * 1.1 + 1000);
    expect(await bench.settledRuns(ticket, 1)).toEqual([expect.objectContaining({ state: 'succeeded', pipeline: 'instant' })]);
    expect(await bench.triggerLog(ticket)).toEqual([{ source: 'poll', event: 'poll', delivery_id: null, outcome: 'Claimed', reason: 'instant', status_code: 0 }]);
    await eventually(() => (bench.tracker.labels(11).includes('service:done') ? true : undefined), 15_000, 'service:done on the ticket');
  }, 40_000);

  it('does not run a Done ticket again on later polls, but does once it is moved back into a trigger status', async () => {
    // A mapped label stays on the ticket after its run (the done status changes only the status).
    const ticket = bench.tracker.id(12);
    bench.tracker.mapLabel(12, true);
    expect(await bench.settledRuns(ticket, 1)).toEqual([expect.objectContaining({ state: 'succeeded' })]);
    await eventually(() => (bench.tracker.labels(12).includes('service:done') ? true : undefined), 15_000, 'service:done on the ticket');
    await bench.cycles(app, 2);
    const asked = bench.pollerRequests().length;
    const sweeps = [];
    for (let i = 0; i < 5; i++) sweeps.push((await bench.cycles(app)).fullSweep);
    expect(sweeps).toContain(true); // a full sweep (every 3 s here) among them
    expect(await bench.runs(ticket)).toHaveLength(1);
    expect(await bench.ticketState(ticket)).toBe('done');
    expect(await bench.triggerLog(ticket)).toHaveLength(1);
    // The ticket's history is read once per change of it, not on every poll: five polls cost their reads only.
    const perPoll = (bench.pollerRequests().length - asked) / 5;
    expect(perPoll).toBeLessThanOrEqual(3);

    await new Promise((done) => setTimeout(done, 1100)); // trackers' times are whole seconds
    bench.tracker.trigger(12);
    expect(await bench.settledRuns(ticket, 2)).toHaveLength(2);
    await bench.cycles(app, 3);
    expect(await bench.runs(ticket)).toHaveLength(2);
    expect((await bench.triggerLog(ticket, 2)).map((r) => r.outcome)).toEqual(['Claimed', 'Claimed']);
  }, 90_000);
});
