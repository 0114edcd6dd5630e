import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../src/platforms/service-marker.js';
import { CapacityQueueService } from '../../src/runs/capacity/capacity-queue.service.js';
import { ReconcilerService } from '../../src/runs/reconciler.service.js';
import { RunRecordsService } from '../../src/runs/run-records.service.js';
import { StaleJobDetectorService } from '../../src/runs/stale-job-detector.service.js';
import { githubExample } from '../fixtures/payload-fixtures.js';
import type { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { fileAt, show } from '../stand-ins/git-repositories.js';
import { eventually } from '../support/eventually.js';
import { blocksOf } from '../support/untrusted-blocks.js';
import { HandBackBench, NEEDS_INFO } from './support/hand-back-server.js';

/**
 * Hand-backs end to end on GitHub: the `code` agent (the model stand-in) calls `ask`, the run
 * parks (its work kept as a wip commit), the ticket shows `service:parked`, the hand-back comment
 * and the needs-clarification status, the ticket's open service pull request gets the hand-back;
 * then each way of answering resumes it (the dashboard route, a ticket comment webhook in
 * GitHub's documented payload shape), except for a not-implementable verdict, which only a retry
 * resumes. What the resumed run's model was told is read from the model stand-in.
 */
let bench: HandBackBench;

beforeAll(async () => {
  bench = await HandBackBench.start();
}, 60_000);

afterAll(async () => {
  await bench?.stop();
});

const branchOf = (ticket: string) => `service/${ticket}`;
const gh = () => bench.host.standIn as GitHubStandIn;
const labels = (ticket: string) => bench.host.labels(ticket);
const comments = (ticket: string) => bench.host.comments(ticket);

/** The model's first request of the run whose prompt carries `marker`. */
const firstRequestWith = (marker: string) => eventually(() => bench.model.modelCalls().find((r) => r.body.includes(marker)), 20_000, `a model request carrying ${marker}`);

/** GitHub `issue_comment` `created` (the octokit example) by `login` on issue `ticket` of the project's repository. */
function ticketComment(ticket: string, body: string, login = 'ana'): Record<string, unknown> {
  const payload = githubExample('issue_comment', 'created');
  const rec = (v: unknown) => v as Record<string, unknown>;
  rec(payload['issue'])['number'] = Number(ticket);
  rec(payload['comment'])['body'] = body;
  rec(rec(payload['comment'])['user'])['login'] = login;
  rec(payload['repository'])['html_url'] = bench.repositoryUrl;
  return payload;
}

describe('hand-back on GitHub', () => {
  it('ask parks the run with its work kept, tells the ticket and its pull request; a dashboard answer resumes it once', async () => {
    const ticket = '51';
    const title = 'Greet visitors in their language';
    bench.host.addTicket(ticket, title, 'Greetings should be localised.');
    // An earlier run opened the ticket's pull request.
    bench.model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Greets in English.' } }] },
      ],
    });
    const first = await bench.server.run(Platform.GitHub, 'app', ticket, 'code');
    expect({ state: first.state, error: first.error }).toEqual({ state: 'succeeded', error: null });
    const [pr] = bench.host.pullRequests().filter((p) => p.head === branchOf(ticket));
    expect(pr).toBeDefined();

    // The ticket comes back; this time the agent changes something, then asks.
    bench.host.addComment(ticket, 'Also German please. AGAIN-51');
    bench.model.script({
      match: 'AGAIN-51',
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.de.txt', content: 'hallo\n' } }] },
        { toolCalls: [{ name: 'ask', input: { kind: 'question', question: 'Formal or informal German? QUESTION-51' } }] },
      ],
    });
    const asking = await bench.server.claim(Platform.GitHub, 'app', ticket, 'code');
    const parked = await bench.parked(asking);
    expect(parked.error).toMatch(/^the agent handed the ticket back \(question\): Formal or informal German\? QUESTION-51; work in progress was pushed to branch service\/51/);
    expect(parked.finishedAt).toBeNull(); // still live: it holds the ticket
    expect(await bench.question(asking)).toMatchObject({ kind: 'question', question: 'Formal or informal German? QUESTION-51', answer: null });
    // The work is kept on the work branch as a wip commit.
    expect(show(bench.host.bare, branchOf(ticket), '%s')).toBe(`[wip] code run ${asking}`);
    expect(fileAt(bench.host.bare, branchOf(ticket), 'greeting.de.txt')).toBe('hallo\n');
    // Another trigger meanwhile finds the ticket held.
    await expect(bench.server.claim(Platform.GitHub, 'app', ticket, 'code')).rejects.toThrow(/AlreadyClaimed/);

    // The ticket: service:parked, the hand-back comment once (question, how to answer), then the status.
    const shown = () => labels(ticket).includes('service:parked') && labels(ticket).includes(NEEDS_INFO) && !labels(ticket).includes('done');
    await eventually(() => (shown() ? true : undefined), 15_000, 'service:parked and needs-info instead of done');
    const handBacks = comments(ticket).filter((c) => c.includes('QUESTION-51'));
    expect(handBacks).toHaveLength(1);
    expect(handBacks[0]).toContain(SERVICE_MARKER);
    expect(handBacks[0]).toContain('reply to this ticket');
    expect(handBacks[0]).toContain(`answer run \`${asking}\` from the dashboard`);
    // The pull request gets it too, with its marker.
    const note = await eventually(() => gh().pullRequest(pr!.number).comments.find((c) => c.body.includes('QUESTION-51')), 15_000, 'the hand-back on the pull request');
    expect(note.body).toContain(`<!-- pipeline-service:hand-back:${asking} -->`);
    expect(note.body).toContain('then comment `/sa`');
    // Days later, without a heartbeat, housekeeping leaves it parked; it holds no capacity and no sandbox.
    await bench.server.db.query(`UPDATE runs SET heartbeat_at = now() - interval '3 days', started_at = now() - interval '3 days' WHERE id = $1`, [asking]);
    const app = bench.server.app;
    expect(await app.get(StaleJobDetectorService).scan()).not.toContain(asking);
    expect(await app.get(ReconcilerService).reconcile()).not.toContain(asking);
    expect((await app.get(CapacityQueueService).inUse()).cpu).toBe(0);
    expect(await app.get(RunRecordsService).mayHoldSandboxes(asking)).toBe(false);
    expect((await bench.run(asking)).state).toBe('parked');

    // The dashboard answer ends the parked run and resumes the ticket.
    bench.model.script({
      match: 'ANSWER-51',
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.de.txt', content: 'hallo\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Informal German greeting.' } }] },
      ],
    });
    const answered = await bench.post(`/api/runs/${asking}/answer`, { answer: '  Informal: ANSWER-51  ' });
    expect(answered.status).toBe(202);
    const resumed = (answered.body['run'] as { id: string; state: string; ticket: string }).id;
    expect(answered.body['run']).toMatchObject({ ticket, state: expect.stringMatching(/queued|running/) });
    expect(resumed).not.toBe(asking);
    // The first answer wins.
    const second = await bench.post(`/api/runs/${asking}/answer`, { answer: 'Formal.' });
    expect(second.status).toBe(409);
    expect(String(second.body['error'])).toContain('already answered');
    expect(await bench.run(asking)).toMatchObject({ state: 'cancelled', error: 'answered by dashboard from the dashboard' });
    expect(await bench.question(asking)).toMatchObject({ answer: 'Informal: ANSWER-51', answered_by: 'dashboard', answer_source: 'dashboard', resumed_run_id: resumed });

    const done = await bench.server.finished(resumed);
    expect(done).toEqual({ state: 'succeeded', error: null });
    // What the resumed run's model read: told it resumes from a hand-back, its own question, and the answer as untrusted data.
    const request = await firstRequestWith('ANSWER-51');
    expect(request.text).toContain('The ticket was handed back with the question');
    expect(request.text).toContain('> Formal or informal German? QUESTION-51');
    expect(blocksOf(request.text)).toContainEqual(expect.objectContaining({ source: 'hand-back-answer', content: 'From: dashboard\n\nInformal: ANSWER-51' }));
    await eventually(() => (labels(ticket).includes('service:done') && !labels(ticket).includes(NEEDS_INFO) ? true : undefined), 15_000, 'done again');
  });

  it('a ticket comment answers a parked ticket (the service\'s own hand-back coming back does not)', async () => {
    const ticket = '52';
    const title = 'Greet at night';
    bench.host.addTicket(ticket, title, 'Say good night after 22:00.');
    bench.model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'ask', input: { kind: 'contradiction', question: 'The ticket says 22:00 but the code uses UTC. Whose clock? QUESTION-52' } }] },
      ],
    });
    const labeled = githubExample('issues', 'labeled');
    (labeled['issue'] as Record<string, unknown>)['number'] = Number(ticket);
    (labeled['label'] as Record<string, unknown>)['name'] = 'ready-for-agent';
    (labeled['repository'] as Record<string, unknown>)['html_url'] = bench.repositoryUrl;
    expect(await bench.deliver('issues', labeled)).toEqual({ status: 202, body: `Accepted: ${ticket} in app` });
    const asking = await eventually(async () => {
      const { rows } = await bench.server.db.query<{ id: string }>(`SELECT id FROM runs WHERE ticket = $1 AND project = 'app'`, [ticket]);
      return rows[0]?.id;
    }, 10_000, 'the run of the label');
    await bench.parked(asking);
    const handBack = await eventually(() => comments(ticket).find((c) => c.includes('QUESTION-52')), 15_000, 'the hand-back comment');

    // The service's own comment comes back as a webhook: not an answer.
    const own = await bench.deliver('issue_comment', ticketComment(ticket, handBack, 'pipeline-bot'));
    expect(own.status).toBe(200);
    expect((await bench.run(asking)).state).toBe('parked');

    bench.model.script({
      match: 'ANSWER-52',
      turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Uses local time.' } }] }],
    });
    const text = 'Local time of the visitor. ANSWER-52 <!-- hidden note -->';
    bench.host.addComment(ticket, text); // on the ticket, as the delivery says
    const reply = await bench.deliver('issue_comment', ticketComment(ticket, text, 'ana'));
    expect(reply).toEqual({ status: 202, body: `Accepted: ${ticket} in app` });
    expect(await bench.run(asking)).toMatchObject({ state: 'cancelled', error: 'answered by ana on the ticket' });
    const question = await bench.question(asking);
    expect(question).toMatchObject({ answered_by: 'ana', answer_source: 'ticket-comment' });
    const resumed = String(question!['resumed_run_id']);
    // The trigger log is written in the background.
    const logged = await eventually(async () => {
      const { rows } = await bench.server.db.query<{ outcome: string; reason: string | null }>(
        `SELECT outcome, reason FROM trigger_log WHERE ticket = $1 AND event = 'issue_comment' ORDER BY id`, [ticket]);
      return rows.length === 2 ? rows : undefined;
    }, 10_000, 'two comment deliveries in the trigger log');
    expect(logged[0]!.outcome).toBe('filtered');
    expect(logged[1]).toEqual({ outcome: 'Claimed', reason: `answer to run ${asking}` });

    expect(await bench.server.finished(resumed)).toEqual({ state: 'succeeded', error: null });
    const request = await firstRequestWith('ANSWER-52');
    const answer = blocksOf(request.text).find((b) => b.source === 'hand-back-answer');
    expect(answer?.content.trimEnd()).toBe('From: ana\n\nLocal time of the visitor. ANSWER-52'); // sanitised: the hidden note is gone
    expect(request.text).toContain('> The ticket says 22:00 but the code uses UTC. Whose clock? QUESTION-52');
  });

  it('a not-implementable hand-back takes no answer, from the dashboard or the ticket; a retry resumes it', async () => {
    const ticket = '53';
    const title = 'Greet by fax';
    bench.host.addTicket(ticket, title, 'Send the greeting by fax.');
    bench.model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'ask', input: { kind: 'not-implementable', question: 'There is no fax gateway in this repository. QUESTION-53' } }] },
      ],
    });
    const asking = await bench.server.claim(Platform.GitHub, 'app', ticket, 'code');
    await bench.parked(asking);
    const comment = await eventually(() => comments(ticket).find((c) => c.includes('QUESTION-53')), 15_000, 'the hand-back comment');
    expect(comment).toContain('only a retry resumes it');

    const refused = await bench.post(`/api/runs/${asking}/answer`, { answer: 'Use e-mail instead.' });
    expect(refused.status).toBe(409);
    expect(String(refused.body['error'])).toContain(`POST /api/runs/${asking}/retry`);
    const reply = await bench.deliver('issue_comment', ticketComment(ticket, 'Use e-mail instead.'));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatch(/^Filtered: .*only a retry/);
    expect((await bench.run(asking)).state).toBe('parked');
    expect(await bench.question(asking)).toMatchObject({ answer: null, answered_at: null });

    bench.model.script({ match: 'retried it without an answer', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Kept the note.' } }] }] });
    const retried = await bench.post(`/api/runs/${asking}/retry`);
    expect(retried.status).toBe(202);
    const fresh = (retried.body['run'] as { id: string }).id;
    expect(await bench.run(asking)).toMatchObject({ state: 'cancelled', error: 'cancelled by dashboard to retry the ticket' });
    expect(await bench.question(asking)).toMatchObject({ answer: null, answered_by: 'dashboard', answer_source: 'retry', resumed_run_id: fresh });
    expect(await bench.server.finished(fresh)).toEqual({ state: 'succeeded', error: null });
    const request = await firstRequestWith('retried it without an answer');
    expect(request.text).toContain('> There is no fax gateway in this repository. QUESTION-53');
  });

  it('the answer route validates its body and knows unknown and unparked runs', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await bench.post(`/api/runs/${unknown}/answer`, { answer: 'x' })).status).toBe(404);
    for (const body of [{}, { answer: '   ' }, { answer: 'x'.repeat(20_001) }, { answer: 42 }, { answer: 'ok', extra: 1 }]) {
      const res = await bench.post(`/api/runs/${unknown}/answer`, body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(typeof res.body['error']).toBe('string');
    }
    const { rows } = await bench.server.db.query<{ id: string }>(`SELECT id FROM runs WHERE state = 'succeeded' LIMIT 1`);
    const ended = await bench.post(`/api/runs/${rows[0]!.id}/answer`, { answer: 'late' });
    expect(ended.status).toBe(409);
    expect(String(ended.body['error'])).toContain('only a parked run takes an answer');
  });
});
