import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { ChatBench, DASHBOARD, OPS_CHANNEL } from './support/chat-bench.js';

/**
 * A start from Slack when capacity is short: the whole server with room for one sandbox
 * (`capacity` = one sandbox's cpu and memory), so a second ticket's run waits, FIFO. Its thread's
 * one message says so with its place, and is edited to Done once the run got its turn.
 */
let bench: ChatBench;
const ALICE = 'U0ALICE';

beforeAll(async () => {
  bench = await ChatBench.start({ capacity: { cpu: 1, memory: '1Gi' } });
}, 90_000);

afterAll(async () => {
  await bench?.stop();
});

describe('chat on Slack with capacity for one run', () => {
  it('a start while capacity is taken is admitted, queued for capacity with its position; the thread\'s one message ends Done', async () => {
    const slow = 'Hold the only slot';
    const waiting = 'Wait for the slot';
    bench.host.addTicket('60', slow, 'x');
    bench.host.addTicket('61', waiting, 'x');
    const turns = (delayMs: number) => [
      { delayMs, toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
      { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
    ];
    bench.model.script({ match: slow, turns: turns(6_000) });
    bench.model.script({ match: waiting, turns: turns(0) });

    const first = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#60');
    expect((await bench.send(first.body, 'application/json')).status).toBe(200);
    const [holder] = await eventually(async () => {
      const runs = await bench.runsOf('60');
      return runs[0]?.state === 'running' && bench.model.modelCalls().some((r) => r.body.includes(slow)) ? runs : undefined;
    }, 30_000, 'the run of #60 to hold the slot');

    const second = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#61');
    expect((await bench.send(second.body, 'application/json')).status).toBe(200);
    const queued = await eventually(() => bench.slack.thread(OPS_CHANNEL, second.ts)[0], 15_000, 'the reply in the second thread');
    const [run] = await bench.runsOf('61');
    expect(run?.state).toBe('queued');
    expect(queued.history[0]).toBe(`⏳ **code** on app/61: admitted, queued for capacity (position 1) — [run ${run!.id.slice(0, 8)}](${DASHBOARD}/runs/${run!.id})`);

    // Once the first run ends, the waiting one is admitted and runs; its thread keeps one message.
    expect(await bench.server.finished(holder!.id, 60_000)).toEqual({ state: 'succeeded', error: null });
    expect(await bench.server.finished(run!.id, 60_000)).toEqual({ state: 'succeeded', error: null });
    const done = await eventually(() => {
      const thread = bench.slack.thread(OPS_CHANNEL, second.ts);
      return thread.length === 1 && thread[0]!.text.includes('Done') ? thread[0] : undefined;
    }, 20_000, 'the second thread\'s message to say Done');
    expect(done.text).toContain(`${DASHBOARD}/runs/${run!.id}`);
    expect(done.history.length).toBeGreaterThan(1); // posted once, then edited
    expect(bench.slack.thread(OPS_CHANNEL, first.ts)).toHaveLength(1);
  }, 120_000);
});
