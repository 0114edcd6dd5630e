import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservationRecorder } from '../../src/access/observation-recorder.service.js';
import type { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { SLACK_TEAM, buttonsOf } from '../stand-ins/slack-stand-in.js';
import { eventually } from '../support/eventually.js';
import { ChatBench, DASHBOARD, OPS_CHANNEL, READERS_CHANNEL } from './support/chat-bench.js';

/**
 * Slack end to end: Slack's real wire formats (Events API, slash commands and interactivity,
 * signed with the v0 scheme) into the whole server, and the Chat SDK's Slack adapter talking to
 * the Slack stand-in's Web API (`chat.slack.api_url`). What Slack shows (the stand-in's messages,
 * their edit history) and what the database holds are asserted.
 */
let bench: ChatBench;
const ALICE = 'U0ALICE';
const READER = 'U0READER';
/** Writes only in a channel `chat.channels` gives no role. */
const CAROL = 'U0CAROL';
const UNLISTED_CHANNEL = 'C0GENERAL';

interface Person { claim: string; value: string; roles: string[]; lastSeen: string | null }

beforeAll(async () => {
  bench = await ChatBench.start();
}, 90_000);

afterAll(async () => {
  await bench?.stop();
});

const botMessagesIn = (channel: string, threadTs: string) => bench.slack.thread(channel, threadTs);

describe('chat on Slack', () => {
  it('a signed mention starts a code run on a GitHub ticket and the thread\'s one message ends with the pull request', async () => {
    const title = 'Greet the chat users';
    bench.host.addTicket('41', title, 'Add greeting.txt saying hello.');
    bench.model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
      ],
    });
    const mention = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#41');
    const answer = await bench.send(mention.body, 'application/json');
    expect(answer.status).toBe(200);

    const [run] = await eventually(async () => ((await bench.runsOf('41')).length ? bench.runsOf('41') : undefined), 15_000, 'the run of #41');
    await eventually(async () => ((await bench.runsOf('41'))[0]?.state === 'succeeded' ? true : undefined), 60_000, 'the run to succeed');
    await eventually(() => bench.host.pullRequests().find((p) => p.head === 'service/41'), 15_000, 'the pull request');
    const resource = await bench.server.get<{ pullRequests: { url: string }[] }>(`/api/runs/${run!.id}`);
    const prUrl = resource.body.pullRequests[0]!.url;
    const done = await eventually(() => {
      const thread = botMessagesIn(OPS_CHANNEL, mention.ts);
      return thread.length === 1 && thread[0]!.text.includes('Done') ? thread : undefined;
    }, 20_000, 'the thread\'s message to say Done');
    // One message, posted once and edited; it ends with the pull request and links the run's page.
    expect(done).toHaveLength(1);
    const message = done[0]!;
    expect(message.threadTs).toBe(mention.ts);
    expect(message.text).toContain(prUrl);
    expect(message.text).toContain(`${DASHBOARD}/runs/${run!.id}`);
    expect(message.history[0]).toMatch(/admitted/);
    expect(message.history.length).toBeGreaterThan(1);
    // Never the same text twice in a row (an unchanged state edits nothing).
    for (let i = 1; i < message.history.length; i++) expect(message.history[i]).not.toBe(message.history[i - 1]);
  }, 120_000);

  it('a bad signature and a request replayed after five minutes get 401 and start nothing', async () => {
    bench.host.addTicket('42', 'Never started', 'x');
    const forged = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#42');
    const bad = await bench.send(forged.body, 'application/json', bench.slack.sign(forged.body, undefined, 'not-the-signing-secret'));
    expect(bad.status).toBe(401);
    const missing = await bench.send(forged.body, 'application/json', {});
    expect(missing.status).toBe(401);
    // Signed correctly, but with a timestamp 301 s old: a replay.
    const replayed = await bench.send(forged.body, 'application/json', bench.slack.sign(forged.body, Math.floor(Date.now() / 1000) - 301));
    expect(replayed.status).toBe(401);
    expect(replayed.body).toMatch(/five-minute/);
    // A slash command with a bad signature: 401 too.
    const command = bench.slack.slashCommand(ALICE, OPS_CHANNEL, '/sa', 'code 42 in app');
    expect((await bench.send(command, 'application/x-www-form-urlencoded', bench.slack.sign(command, undefined, 'wrong'))).status).toBe(401);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await bench.runsOf('42')).toEqual([]);
    expect(botMessagesIn(OPS_CHANNEL, forged.ts)).toEqual([]);
  });

  it('a user without runs.control is refused, the refusal naming it, and nothing starts', async () => {
    bench.host.addTicket('43', 'Not for readers', 'x');
    const mention = bench.slack.mention(READER, READERS_CHANNEL, 'run code on app#43');
    expect((await bench.send(mention.body, 'application/json')).status).toBe(200);
    const reply = await eventually(() => botMessagesIn(READERS_CHANNEL, mention.ts)[0], 15_000, 'the refusal');
    expect(reply.text).toContain('runs.control');
    expect(reply.text).toContain(`slack:${SLACK_TEAM}/${READER}`);
    expect(await bench.runsOf('43')).toEqual([]);
    // Nor a design dialogue (dialog.write).
    const spec = bench.slack.mention(READER, READERS_CHANNEL, 'spec for app: a new page');
    await bench.send(spec.body, 'application/json');
    expect((await eventually(() => botMessagesIn(READERS_CHANNEL, spec.ts)[0], 15_000, 'the refusal')).text).toContain('dialog.write');
    // Reading is what a reader may do.
    const state = bench.slack.mention(READER, READERS_CHANNEL, 'status of app#41');
    await bench.send(state.body, 'application/json');
    const stateReply = await eventually(() => botMessagesIn(READERS_CHANNEL, state.ts)[0], 15_000, 'the state');
    expect(stateReply.text).toContain('Done');
  });

  it('a redelivered Slack event (same event_id, X-Slack-Retry-Num) starts nothing new', async () => {
    bench.host.addTicket('44', 'Once only', 'x');
    bench.model.script({ match: 'Once only', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Nothing to change.' } }] }] });
    const mention = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#44');
    expect((await bench.send(mention.body, 'application/json')).status).toBe(200);
    const retry = await bench.send(mention.body, 'application/json', { ...bench.slack.sign(mention.body), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    expect(retry.status).toBe(200);
    await eventually(async () => ((await bench.runsOf('44')).length ? true : undefined), 15_000, 'the run of #44');
    await new Promise((r) => setTimeout(r, 2000));
    expect(await bench.runsOf('44')).toHaveLength(1);
    expect(botMessagesIn(OPS_CHANNEL, mention.ts)).toHaveLength(1);
  });

  it('a parked run\'s question is answered with its button: the parked run ends and the next attempt runs with the answer', async () => {
    const title = 'Greet in German';
    bench.host.addTicket('45', title, 'Add greeting.de.txt.');
    bench.model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'ask', input: { kind: 'question', question: 'Which form of address?\n- Formal\n- Informal' } }] },
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Informal greeting.' } }] },
      ],
    });
    const command = bench.slack.slashCommand(ALICE, OPS_CHANNEL, '/sa', 'code 45 in app');
    expect((await bench.send(command, 'application/x-www-form-urlencoded')).status).toBe(200);
    const parked = await eventually(() => {
      const m = bench.slack.messages.find((x) => x.channel === OPS_CHANNEL && x.text.includes('Which form of address?'));
      return m && buttonsOf(m).length ? m : undefined;
    }, 60_000, 'the parked question with its buttons');
    expect(buttonsOf(parked).map((b) => b.text)).toEqual(['Formal', 'Informal']);
    const [first] = await bench.runsOf('45');
    expect(first!.state).toBe('parked');

    const click = bench.slack.click(ALICE, parked, 'Informal');
    expect((await bench.send(click, 'application/x-www-form-urlencoded')).status).toBe(200);
    await eventually(async () => {
      const runs = await bench.runsOf('45');
      return runs.length === 2 && runs[0]!.state === 'cancelled' && !['queued', 'running'].includes(runs[1]!.state) ? runs : undefined;
    }, 60_000, 'the answered run to end and the next attempt to end');
    const { rows: ended } = await bench.server.db.query<{ state: string; error: string | null }>('SELECT state, error FROM runs WHERE ticket = $1 ORDER BY created_at', ['45']);
    expect(ended[1]).toEqual({ state: 'succeeded', error: null });
    const { rows } = await bench.server.db.query<{ answer: string; answered_by: string; answer_source: string }>('SELECT answer, answered_by, answer_source FROM run_questions WHERE run_id = $1', [first!.id]);
    expect(rows[0]).toEqual({ answer: 'Informal', answered_by: `slack:${SLACK_TEAM}/${ALICE}`, answer_source: 'chat' });
    // The same message moved on to the next attempt and ended Done; the model was told the answer.
    await eventually(() => (parked.text.includes('Done') ? true : undefined), 20_000, 'the message to say Done');
    expect(parked.history.some((t) => t.includes('Answered by'))).toBe(true);
    const resumed = bench.model.modelCalls().filter((r) => r.body.includes(title));
    expect(resumed.at(-1)!.text).toContain('Informal');
  }, 150_000);

  it('a reply in the thread answers a parked run; `cancel` in a parked run\'s thread cancels it, attributed', async () => {
    bench.host.addTicket('46', 'Pick a colour', 'x');
    bench.host.addTicket('47', 'Pick a size', 'x');
    bench.model.script({
      match: 'Pick a colour',
      turns: [
        { toolCalls: [{ name: 'ask', input: { kind: 'question', question: 'Which colour should the greeting have? QUESTION-46' } }] },
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Coloured.' } }] },
      ],
    });
    bench.model.script({ match: 'Pick a size', turns: [{ toolCalls: [{ name: 'ask', input: { kind: 'question', question: 'Which size? QUESTION-47' } }] }] });
    const colour = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#46');
    const size = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#47');
    await bench.send(colour.body, 'application/json');
    await bench.send(size.body, 'application/json');
    await eventually(() => botMessagesIn(OPS_CHANNEL, colour.ts).find((m) => m.text.includes('QUESTION-46')), 60_000, 'question 46 in its thread');
    await eventually(() => botMessagesIn(OPS_CHANNEL, size.ts).find((m) => m.text.includes('QUESTION-47')), 60_000, 'question 47 in its thread');

    const reply = bench.slack.threadReply(ALICE, OPS_CHANNEL, colour.ts, 'Dark blue, please. ANSWER-46');
    expect((await bench.send(reply.body, 'application/json')).status).toBe(200);
    await eventually(async () => {
      const runs = await bench.runsOf('46');
      return runs.length === 2 && runs[1]!.state === 'succeeded' ? runs : undefined;
    }, 60_000, 'the answered run\'s next attempt to succeed');
    expect(bench.model.modelCalls().filter((r) => r.body.includes('Pick a colour')).at(-1)!.text).toContain('ANSWER-46');
    // Still one message of the service in that thread.
    await eventually(() => (botMessagesIn(OPS_CHANNEL, colour.ts).length === 1 && botMessagesIn(OPS_CHANNEL, colour.ts)[0]!.text.includes('Done') ? true : undefined), 20_000, 'the one message to say Done');

    const cancel = bench.slack.threadReply(ALICE, OPS_CHANNEL, size.ts, 'cancel');
    expect((await bench.send(cancel.body, 'application/json')).status).toBe(200);
    const { rows } = await eventually(async () => {
      const r = await bench.server.db.query<{ state: string; error: string }>('SELECT state, error FROM runs WHERE ticket = $1', ['47']);
      return r.rows[0]?.state === 'cancelled' ? r : undefined;
    }, 20_000, 'run 47 to be cancelled');
    expect(rows[0]!.error).toContain(`cancelled by slack:${SLACK_TEAM}/${ALICE}`);
  }, 150_000);

  it('free text is read by the model only once runs.control holds, inside the untrusted block, and only as one of the intents', async () => {
    bench.model.script({ match: 'FREE-TEXT-OPS', turns: [{ toolCalls: [{ name: 'choose_intent', input: { intent: 'state' } }] }] });
    const free = bench.slack.mention(ALICE, OPS_CHANNEL, 'how did the greeting work go? FREE-TEXT-OPS');
    await bench.send(free.body, 'application/json');
    const reply = await eventually(() => botMessagesIn(OPS_CHANNEL, free.ts)[0], 20_000, 'the reply to free text');
    expect(reply.text).toMatch(/most recent|No runs yet/);
    const asked = bench.model.modelCalls().find((r) => r.body.includes('FREE-TEXT-OPS'))!;
    expect(asked.text).toMatch(/<untrusted-data[^>]*>[\s\S]*FREE-TEXT-OPS[\s\S]*<\/untrusted-data/);

    // A choice outside the intents (a pipeline nobody configured) is no intent at all.
    bench.model.script({ match: 'FREE-TEXT-WIDEN', turns: [{ toolCalls: [{ name: 'choose_intent', input: { intent: 'start', pipeline: 'deploy-prod', ticket: 'app#41' } }] }] });
    const widen = bench.slack.mention(ALICE, OPS_CHANNEL, 'ship it to production FREE-TEXT-WIDEN');
    await bench.send(widen.body, 'application/json');
    expect((await eventually(() => botMessagesIn(OPS_CHANNEL, widen.ts)[0], 20_000, 'the reply')).text).toContain('did not understand');

    // Without runs.control, free text never reaches the model.
    const reader = bench.slack.mention(READER, READERS_CHANNEL, 'please look at the greeting FREE-TEXT-READER');
    await bench.send(reader.body, 'application/json');
    expect((await eventually(() => botMessagesIn(READERS_CHANNEL, reader.ts)[0], 20_000, 'the reply')).text).toContain('did not understand');
    expect(bench.model.modelCalls().some((r) => r.body.includes('FREE-TEXT-READER'))).toBe(false);
  });

  it('a design dialogue in a thread files its draft as a ticket only after the confirmation button', async () => {
    const gh = bench.host.standIn as GitHubStandIn;
    bench.model.script({
      match: 'DESIGN-CHAT-7',
      turns: [
        { toolCalls: [{ name: 'propose_ticket', input: { title: 'DESIGN-CHAT-7 round the totals', body: 'Totals in cents.', criteria: ['totals are in cents'], labels: ['design'] } }] },
        { text: 'DESIGN-CHAT-7: one ticket.' },
      ],
    });
    const before = gh.issues.size;
    const spec = bench.slack.mention(ALICE, OPS_CHANNEL, 'spec for app: round the totals DESIGN-CHAT-7');
    await bench.send(spec.body, 'application/json');
    const proposal = await eventually(() => botMessagesIn(OPS_CHANNEL, spec.ts).find((m) => buttonsOf(m).length > 0), 60_000, 'the proposal with its button');
    expect(proposal.text).toContain('DESIGN-CHAT-7 round the totals');
    expect(proposal.text).toContain('totals are in cents');
    expect(gh.issues.size).toBe(before); // nothing filed before the confirmation
    await new Promise((r) => setTimeout(r, 500));
    expect(gh.issues.size).toBe(before);
    await bench.send(bench.slack.click(ALICE, proposal, buttonsOf(proposal)[0]!.text), 'application/x-www-form-urlencoded');
    const filed = await eventually(() => [...gh.issues.values()].find((i) => i.title === 'DESIGN-CHAT-7 round the totals'), 30_000, 'the filed issue');
    expect(filed.body).toContain('totals are in cents');
    await eventually(() => botMessagesIn(OPS_CHANNEL, spec.ts).find((m) => m.text.startsWith('Filed by')), 20_000, 'the thread to say it was filed');
  }, 120_000);

  it('a user whose channel gives no role is refused naming runs.control, then starts the pipeline once granted a role through a person grant with claim chat', async () => {
    const principal = `slack:${SLACK_TEAM}/${CAROL}`;
    bench.host.addTicket('49', 'Granted through Access', 'x');
    bench.model.script({ match: 'Granted through Access', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Nothing to change.' } }] }] });
    // Before the grant: no channel role, no person grant, so no role at all.
    const before = bench.slack.mention(CAROL, UNLISTED_CHANNEL, 'fix app#49');
    expect((await bench.send(before.body, 'application/json')).status).toBe(200);
    const refusal = await eventually(() => botMessagesIn(UNLISTED_CHANNEL, before.ts)[0], 15_000, 'the refusal');
    expect(refusal.text).toContain('`runs.control`');
    expect(refusal.text).toContain(principal);
    expect(refusal.text).toContain('roles: none');
    expect(await bench.runsOf('49')).toEqual([]);
    // Seen, as any caller, with no roles yet.
    await bench.server.app.get(ObservationRecorder).flush();
    const seen = await bench.server.get<{ people: Person[] }>(`/api/access/people?q=${encodeURIComponent(CAROL)}&limit=200`);
    expect(seen.body.people.find((p) => p.claim === 'chat' && p.value === principal)).toMatchObject({ roles: [] });

    // The administrator grants operator to the chat principal on the Access surface.
    const granted = await bench.server.app.inject({
      method: 'PUT', url: `/api/access/people/chat/${encodeURIComponent(principal)}`, headers: { 'content-type': 'application/json' }, payload: { roles: ['operator'] },
    });
    expect(granted.statusCode).toBe(200);
    expect(granted.json()).toEqual({ claim: 'chat', value: principal, roles: ['operator'], findings: [] });

    // The same message, sent again (a new event), now starts the run in the thread.
    const after = bench.slack.mention(CAROL, UNLISTED_CHANNEL, 'fix app#49');
    expect((await bench.send(after.body, 'application/json')).status).toBe(200);
    const [run] = await eventually(async () => ((await bench.runsOf('49')).length ? bench.runsOf('49') : undefined), 15_000, 'the run of #49');
    const started = await eventually(() => botMessagesIn(UNLISTED_CHANNEL, after.ts)[0], 15_000, 'the run\'s message');
    expect(started.text).not.toContain('Refused');
    expect(started.text).toContain(`${DASHBOARD}/runs/${run!.id}`);
    await bench.server.finished(run!.id, 60_000);
    expect(await bench.runsOf('49')).toHaveLength(1);
    await bench.server.app.get(ObservationRecorder).flush();
    const listed = await bench.server.get<{ people: Person[] }>(`/api/access/people?q=${encodeURIComponent(CAROL)}&limit=200`);
    const row = listed.body.people.find((p) => p.claim === 'chat' && p.value === principal)!;
    expect(row.roles).toEqual(['operator']);
    expect(row.lastSeen).not.toBeNull();
  }, 120_000);

  it('a second start while a run already works on the ticket is refused in its thread, and no second run is created', async () => {
    const title = 'Slow to finish';
    bench.host.addTicket('48', title, 'x');
    // The first model turn is held long enough for the second start to arrive while the run is live.
    bench.model.script({
      match: title,
      turns: [
        { delayMs: 8_000, toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
      ],
    });
    const first = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#48');
    expect((await bench.send(first.body, 'application/json')).status).toBe(200);
    const [run] = await eventually(async () => {
      const runs = await bench.runsOf('48');
      return runs[0]?.state === 'running' && bench.model.modelCalls().some((r) => r.body.includes(title)) ? runs : undefined;
    }, 30_000, 'the run of #48 to be running, its model turn held');

    const second = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#48');
    expect((await bench.send(second.body, 'application/json')).status).toBe(200);
    const refused = await eventually(() => botMessagesIn(OPS_CHANNEL, second.ts)[0], 15_000, 'the refusal in the second thread');
    expect(refused.text).toContain(`Refused: run ${run!.id.slice(0, 8)} is already running on app/48 (one live run per ticket)`);
    expect(refused.text).toContain(`${DASHBOARD}/runs/${run!.id}`);
    expect(refused.text).toContain('follow app#48');
    // The refusal is the second thread's only message; the first run's thread keeps its one message.
    expect(botMessagesIn(OPS_CHANNEL, second.ts)).toHaveLength(1);
    expect(await bench.runsOf('48')).toEqual([{ id: run!.id, state: 'running' }]);
    // Once the first run ends, still that one run (the refusal queued nothing).
    const ended = await bench.server.finished(run!.id, 60_000);
    expect(ended).toEqual({ state: 'succeeded', error: null });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await bench.runsOf('48')).map((r) => r.id)).toEqual([run!.id]);
    expect(botMessagesIn(OPS_CHANNEL, first.ts)).toHaveLength(1);
    expect(botMessagesIn(OPS_CHANNEL, second.ts)).toHaveLength(1);
  }, 120_000);

  it('`help` in a thread answers there with the intents the service understands and who the caller is', async () => {
    // A person's message in the channel, then a mention in its thread asking for help.
    const root = bench.slack.mention(ALICE, OPS_CHANNEL, 'anyone around?');
    const ask = bench.slack.mention(ALICE, OPS_CHANNEL, 'help', { threadTs: root.ts });
    expect((await bench.send(ask.body, 'application/json')).status).toBe(200);
    const reply = await eventually(() => botMessagesIn(OPS_CHANNEL, root.ts)[0], 15_000, 'the help in the thread');
    expect(reply.threadTs).toBe(root.ts);
    expect(botMessagesIn(OPS_CHANNEL, root.ts)).toHaveLength(1);
    expect(reply.text).toContain('from Slack');
    expect(reply.text).toContain(`slack:${SLACK_TEAM}/${ALICE}`);
    expect(reply.text).toContain('roles: operator');
    // Each intent the rules read, with the permission it needs.
    for (const part of ['fix BILL-12', 'run security-scan on shop#42', 'code 42 in shop', 'start a pipeline on a ticket (runs.control)',
      'status of shop#42', '(runs.read)', 'follow shop#42', 'cancel shop#42', 'reply there, or press an answer', 'spec …', '(dialog.write)']) {
      expect(reply.text).toContain(part);
    }
    // Nothing was started, and the model was not asked.
    expect(bench.model.modelCalls().some((r) => r.body.includes('anyone around?'))).toBe(false);
    // A reader asking in a thread of their channel is told their own role.
    const readerRoot = bench.slack.mention(READER, READERS_CHANNEL, 'hello');
    const readerAsk = bench.slack.mention(READER, READERS_CHANNEL, 'what can you do?', { threadTs: readerRoot.ts });
    await bench.send(readerAsk.body, 'application/json');
    const readerReply = await eventually(() => botMessagesIn(READERS_CHANNEL, readerRoot.ts)[0], 15_000, 'the reader\'s help');
    expect(readerReply.text).toContain(`slack:${SLACK_TEAM}/${READER}\` (roles: reader)`);
    expect(readerReply.text).toContain('follow shop#42');
  });

  it('`follow <ticket>` on a ticket with a live run keeps one message in the asking thread, edited until the run ends Done', async () => {
    const title = 'Follow me along';
    bench.host.addTicket('50', title, 'Add greeting.txt.');
    // The first model turn is held so the run is still live when someone asks to follow it.
    bench.model.script({
      match: title,
      turns: [
        { delayMs: 6_000, toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
      ],
    });
    const start = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#50');
    expect((await bench.send(start.body, 'application/json')).status).toBe(200);
    const [run] = await eventually(async () => {
      const runs = await bench.runsOf('50');
      return runs[0]?.state === 'running' ? runs : undefined;
    }, 30_000, 'the run of #50 to be running');

    // A reader (runs.read) follows it from another channel: a new thread, its own message.
    const follow = bench.slack.mention(READER, READERS_CHANNEL, 'follow app#50');
    expect((await bench.send(follow.body, 'application/json')).status).toBe(200);
    const message = await eventually(() => botMessagesIn(READERS_CHANNEL, follow.ts)[0], 15_000, 'the followed run\'s message');
    expect(message.threadTs).toBe(follow.ts);
    expect(message.history[0]).toContain(`${DASHBOARD}/runs/${run!.id}`);
    expect(message.history[0]).not.toMatch(/Done|Failed/);

    const ended = await bench.server.finished(run!.id, 60_000);
    expect(ended).toEqual({ state: 'succeeded', error: null });
    const pr = await eventually(() => bench.host.pullRequests().find((p) => p.head === 'service/50'), 15_000, 'the pull request');
    await eventually(() => (message.text.includes('Done') ? true : undefined), 20_000, 'the followed message to say Done');
    // Still one message in that thread, edited (never re-posted), ending with the pull request.
    expect(botMessagesIn(READERS_CHANNEL, follow.ts)).toEqual([message]);
    expect(message.history.length).toBeGreaterThan(1);
    for (let i = 1; i < message.history.length; i++) expect(message.history[i]).not.toBe(message.history[i - 1]);
    expect(message.text).toContain(`${DASHBOARD}/runs/${run!.id}`);
    const resource = await bench.server.get<{ pullRequests: { url: string }[] }>(`/api/runs/${run!.id}`);
    expect(resource.body.pullRequests.map((p) => p.url)).toHaveLength(1);
    expect(message.text).toContain(resource.body.pullRequests[0]!.url);
    expect(pr).toBeDefined();
    // The starting thread kept its own one message too, also ending Done.
    await eventually(() => (botMessagesIn(OPS_CHANNEL, start.ts)[0]?.text.includes('Done') ? true : undefined), 20_000, 'the starting thread to say Done');
    expect(botMessagesIn(OPS_CHANNEL, start.ts)).toHaveLength(1);

    // Once the run has ended there is nothing live to follow: said so, nothing followed.
    const late = bench.slack.mention(READER, READERS_CHANNEL, 'follow app#50');
    await bench.send(late.body, 'application/json');
    const none = await eventually(() => botMessagesIn(READERS_CHANNEL, late.ts)[0], 15_000, 'the reply to a late follow');
    expect(none.text).toContain('No run is live on');
    expect(none.text).toContain('status of app#50');
  }, 120_000);

  it('`follow <ticket>` on a run that fails: the asking thread\'s one message ends Failed with the one-line reason', async () => {
    const title = 'Follow me into failure';
    bench.host.addTicket('51', title, 'x');
    // The model is held, then refuses the request outright (a 400 is not retried): the run fails.
    bench.model.script({ match: title, turns: [{ delayMs: 5_000, fault: 'server-error', status: 400 }, { fault: 'server-error', status: 400 }, { fault: 'server-error', status: 400 }] });
    const start = bench.slack.mention(ALICE, OPS_CHANNEL, 'fix app#51');
    expect((await bench.send(start.body, 'application/json')).status).toBe(200);
    const [run] = await eventually(async () => {
      const runs = await bench.runsOf('51');
      return runs[0]?.state === 'running' ? runs : undefined;
    }, 30_000, 'the run of #51 to be running');

    const follow = bench.slack.mention(ALICE, OPS_CHANNEL, 'watch app#51');
    expect((await bench.send(follow.body, 'application/json')).status).toBe(200);
    const message = await eventually(() => botMessagesIn(OPS_CHANNEL, follow.ts)[0], 15_000, 'the followed run\'s message');
    expect(message.history[0]).not.toMatch(/Done|Failed/);

    const ended = await bench.server.finished(run!.id, 60_000);
    expect(ended.state).toBe('failed');
    await eventually(() => (message.text.includes('Failed') ? true : undefined), 20_000, 'the followed message to say Failed');
    expect(botMessagesIn(OPS_CHANNEL, follow.ts)).toEqual([message]);
    expect(message.history.length).toBeGreaterThan(1);
    expect(message.text).not.toContain('Done');
    expect(message.text).toContain(`Failed — ${ended.error!.split('\n')[0]}`);
    expect(message.text).toContain(`${DASHBOARD}/runs/${run!.id}`);
  }, 120_000);

  it('the Access surface lists the chat principals seen', async () => {
    await bench.server.app.get(ObservationRecorder).flush();
    const people = await bench.server.get<{ people: { claim: string; value: string; signedIn: boolean }[] }>('/api/access/people?limit=200');
    const chat = people.body.people.filter((p) => p.claim === 'chat').map((p) => p.value);
    expect(chat).toEqual(expect.arrayContaining([`slack:${SLACK_TEAM}/${ALICE}`, `slack:${SLACK_TEAM}/${READER}`]));
  });
});
