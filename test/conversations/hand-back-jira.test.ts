import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../src/platforms/service-marker.js';
import { loadFixture } from '../fixtures/payload-fixtures.js';
import { eventually } from '../support/eventually.js';
import { blocksOf } from '../support/untrusted-blocks.js';
import { HandBackBench, JIRA_NEEDS_INFO } from './support/hand-back-server.js';

/**
 * A hand-back on a Jira ticket (code on GitHub): the ticket moves to `needs_clarification_status`
 * through its workflow and gets the hand-back in wiki markup; a `comment_created` delivery (the
 * documented example's shape) answers it, and the resumed run ends the ticket Done.
 */
let bench: HandBackBench;

beforeAll(async () => {
  bench = await HandBackBench.start('jira');
}, 60_000);

afterAll(async () => {
  await bench?.stop();
});

/** `comment_created` built from the documented example's issue and comment, by `displayName`. */
function commentCreated(key: string, body: string, displayName: string): Record<string, unknown> {
  const example = loadFixture('jira', 'issue-updated');
  const issue = example['issue'] as Record<string, unknown>;
  issue['key'] = key;
  const original = example['comment'] as Record<string, unknown>;
  const comment: Record<string, unknown> = { ...original, body, author: { ...(original['author'] as Record<string, unknown>), displayName } };
  return { timestamp: example['timestamp'], webhookEvent: 'comment_created', issue, comment };
}

describe('hand-back on Jira', () => {
  it('parks the ticket in its needs-clarification status with the question; a comment answers it', async () => {
    const jira = bench.jira!;
    const key = 'APP-61';
    const title = 'Greet in the customer\'s timezone';
    jira.addIssue(key, 'Ready for Agent', [], title, 'Greetings depend on the time of day.');
    bench.model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'ask', input: { kind: 'question', question: 'Which timezone when the customer has none? QUESTION-61' } }] },
      ],
    });
    const asking = await bench.server.claim(Platform.Jira, 'app', key, 'code');
    await bench.parked(asking);
    const issue = () => jira.issues.get(key)!;
    await eventually(() => (issue().status === JIRA_NEEDS_INFO && issue().labels.includes('service:parked') ? true : undefined), 15_000, `${key} in ${JIRA_NEEDS_INFO}`);
    const handBack = issue().comments.find((c) => c.body.includes('QUESTION-61'))!.body;
    expect(handBack).toContain(SERVICE_MARKER);
    expect(handBack).toContain('*Pipeline code handed this ticket back with a question*');
    expect(handBack).toContain('{noformat}');

    bench.model.script({ match: 'ANSWER-61', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'UTC by default.' } }] }] });
    jira.addComment(key, 'UTC. ANSWER-61', 'Ana Admin');
    expect(await bench.deliverJira(commentCreated(key, 'UTC. ANSWER-61', 'Ana Admin'))).toEqual({ status: 202, body: `Accepted: ${key} in app` });
    expect(await bench.run(asking)).toMatchObject({ state: 'cancelled', error: 'answered by Ana Admin on the ticket' });
    const resumed = String((await bench.question(asking))!['resumed_run_id']);
    expect(await bench.server.finished(resumed)).toEqual({ state: 'succeeded', error: null });
    const request = await eventually(() => bench.model.modelCalls().find((r) => r.body.includes('ANSWER-61')), 10_000, 'the resumed request');
    expect(blocksOf(request.text)).toContainEqual(expect.objectContaining({ source: 'hand-back-answer', content: 'From: Ana Admin\n\nUTC. ANSWER-61' }));
    await eventually(() => (issue().status === 'Done' && issue().labels.includes('service:done') ? true : undefined), 15_000, `${key} Done`);
  });
});
