import { describe, expect, it } from 'vitest';
import { Platform } from '../../platforms/platform.js';
import { carriesServiceMarker } from '../../platforms/service-marker.js';
import { buildPullRequestHandBack, handBackMarker } from '../../conversations/hand-back/hand-back-pull-request-comment.js';
import { TicketCommentKind, carriesRunMarker } from './failure-comment.js';
import { buildHandBackComment, type HandBackCommentInput } from './hand-back-comment.js';

const RUN = '6f1c2a7e-4f4b-4c36-9a8e-3f1d2c3b4a59';
const input = (over: Partial<HandBackCommentInput> = {}): HandBackCommentInput => ({
  platform: Platform.GitHub, runId: RUN, pipeline: 'code', kind: 'question', question: 'Round per line or per cart?', secrets: [], maxChars: 4000, ...over,
});

describe('hand-back comment on the ticket', () => {
  it('carries the service marker and its own run marker on every tracker, with the question', () => {
    for (const platform of Object.values(Platform)) {
      const body = buildHandBackComment(input({ platform }));
      expect(carriesServiceMarker(body), platform).toBe(true);
      expect(carriesRunMarker(body, RUN, TicketCommentKind.HandBack), platform).toBe(true);
      expect(carriesRunMarker(body, RUN, TicketCommentKind.Failure), platform).toBe(false);
      expect(body, platform).toContain('Round per line or per cart?');
      expect(body, platform).toContain('with a question');
    }
  });

  it('says how to answer: a reply on the ticket, the pull request followed by a command, or the dashboard', () => {
    const body = buildHandBackComment(input({ kind: 'contradiction' }));
    expect(body).toContain('found a contradiction');
    expect(body).toContain('reply to this ticket');
    expect(body).toContain('pull request, then comment `/sa`');
    expect(body).toContain(`answer run \`${RUN}\` from the dashboard`);
  });

  it('for a not-implementable verdict says only a retry resumes it', () => {
    for (const platform of Object.values(Platform)) {
      const body = buildHandBackComment(input({ platform, kind: 'not-implementable', question: 'There is no payment API in this repository.' }));
      expect(body, platform).toContain('not implementable');
      expect(body, platform).toContain('only a retry resumes it');
      expect(body, platform).not.toContain('reply to this ticket with a comment');
    }
  });

  it('scrubs secrets, escapes HTML on Azure DevOps, keeps the Markdown fence closed, cuts a long question', () => {
    const gh = buildHandBackComment(input({ question: 'Use token ghp_LEAK or ```sh rm```?', secrets: ['ghp_LEAK'] }));
    expect(gh).not.toContain('ghp_LEAK');
    expect(gh).toContain('````text');
    const ado = buildHandBackComment(input({ platform: Platform.AzureDevOps, question: '<img src=x onerror=alert(1)>' }));
    expect(ado).toContain('&lt;img');
    expect(ado).not.toContain('<img');
    const jira = buildHandBackComment(input({ platform: Platform.Jira, question: 'a {noformat} b' }));
    expect(jira.match(/\{noformat\}/g)).toHaveLength(2);
    const long = buildHandBackComment(input({ question: `START ${'x'.repeat(10_000)} END`, maxChars: 1000 }));
    expect(long.length).toBeLessThan(1600);
    expect(long).toContain('START');
    expect(long).toContain('END');
  });
});

describe('hand-back note on a pull request', () => {
  it('carries the service marker and the run\'s hand-back marker, the question, and how to answer there', () => {
    const body = buildPullRequestHandBack({ runId: RUN, pipeline: 'code', ticket: '42', kind: 'question', question: 'Which currency?', secrets: [], platform: Platform.GitHub });
    expect(handBackMarker(RUN)).toBe(`<!-- pipeline-service:hand-back:${RUN} -->`);
    expect(body).toContain(handBackMarker(RUN));
    expect(carriesServiceMarker(body)).toBe(true);
    expect(body).toContain('Which currency?');
    expect(body).toContain('reply on this pull request, then comment `/sa`');
  });

  it('on Azure DevOps, whose pull-request comments reach no one, the act that answers is a Wait for author vote', () => {
    const body = buildPullRequestHandBack({ runId: RUN, pipeline: 'code', ticket: '42', kind: 'question', question: 'Which currency?', secrets: [], platform: Platform.AzureDevOps });
    expect(body).toContain('reply on this pull request, then vote **Wait for author**');
    expect(body).not.toContain('/sa');
  });

  it('for a not-implementable verdict points at a retry, and never shows a secret', () => {
    const body = buildPullRequestHandBack({ runId: RUN, pipeline: 'code', ticket: '42', kind: 'not-implementable', question: 'needs sk-LEAK-1', secrets: ['sk-LEAK-1'], platform: Platform.GitHub });
    expect(body).toContain('retry run');
    expect(body).not.toContain('/sa');
    expect(body).not.toContain('sk-LEAK-1');
  });
});
