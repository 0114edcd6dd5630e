import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PIPELINES, TEST_PROJECTS, type Wire, githubLabeled, githubWire, jiraUpdated, jiraWire } from './support/deliveries.js';
import { SECRETS, type WebhookBench, type WebhookReply, bootServer, createWebhookBench, githubSignature, runsOf, sendWire } from './support/webhook-harness.js';

/**
 * How the real server reads a delivery's body: signatures are checked over the bytes received
 * (a body whose bytes the server does not keep is refused, not verified over nothing), the form
 * media type is recognised in any case, and payload text echoed in an answer is bounded.
 */
const TEXT = 'text/plain; charset=utf-8';
const UNSUPPORTED = {
  status: 415,
  body: 'Unsupported Media Type: send application/json or application/x-www-form-urlencoded; '
    + 'signatures are checked over the raw body, which is kept only for those',
  contentType: TEXT,
};

let bench: WebhookBench;
let app: NestFastifyApplication;

const send = (wire: Wire): Promise<WebhookReply> => sendWire(app, wire);

/** A GitHub delivery of `issues` labeled `bug` on issue `number`, as `contentType`, signed over `signedBytes` (default: the bytes sent). */
function githubAs(contentType: string, number: number, signedBytes?: string): Wire {
  const wire = githubWire('issues', githubLabeled(number), { delivery: randomUUID() });
  const signature = githubSignature(SECRETS.platformA, signedBytes ?? wire.payload);
  return { ...wire, headers: { ...wire.headers, 'content-type': contentType, 'X-Hub-Signature-256': signature } };
}

/** GitHub's form delivery: the JSON in a `payload` field, signed over the form bytes. */
function githubForm(contentType: string, number: number): Wire {
  const wire = githubWire('issues', githubLabeled(number), { delivery: randomUUID() });
  const payload = new URLSearchParams({ payload: wire.payload }).toString();
  return { ...wire, payload, headers: { ...wire.headers, 'content-type': contentType, 'X-Hub-Signature-256': githubSignature(SECRETS.platformA, payload) } };
}

beforeAll(async () => {
  bench = await createWebhookBench({ projects: TEST_PROJECTS, pipelines: TEST_PIPELINES });
  app = await bootServer(bench.environment());
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
});

describe('a body whose raw bytes are not kept is refused, never verified over no bytes', () => {
  it('text/plain signed over the empty string (which used to pass): 415 on both routes, nothing claimed', async () => {
    for (const url of ['/webhook/platform-a', '/webhook']) {
      expect(await send({ ...githubAs('text/plain', 801, ''), url })).toEqual(UNSUPPORTED);
    }
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '801')).toHaveLength(0);
  });

  it('text/plain correctly signed over its bytes (which used to get 401): 415', async () => {
    expect(await send(githubAs('text/plain; charset=utf-8', 802))).toEqual(UNSUPPORTED);
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '802')).toHaveLength(0);
  });

  it('an unsigned text/plain Jira delivery for a project without a secret: 415', async () => {
    const wire = jiraWire(jiraUpdated('OPEN-801', 'Ready for Agent'), { signature: null });
    expect(await send({ ...wire, headers: { ...wire.headers, 'content-type': 'text/plain' } })).toEqual(UNSUPPORTED);
    expect(await runsOf(bench.db, 'platform-d', 'jira-open', 'OPEN-801')).toHaveLength(0);
  });

  it('JSON keeps its raw bytes whatever the media type\'s case: signed Application/JSON is claimed', async () => {
    expect(await send(githubAs('Application/JSON; Charset=UTF-8', 803))).toEqual({ status: 202, body: 'Accepted: 803 in gh-main', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '803')).toHaveLength(1);
  });
});

describe('the form media type is compared case-insensitively, parameters ignored', () => {
  it.each([
    ['application/x-www-form-urlencoded', 811],
    ['Application/x-www-form-urlencoded', 812],
    ['APPLICATION/X-WWW-FORM-URLENCODED; charset=UTF-8', 813],
  ] as const)('%s: the payload field is unwrapped and claimed', async (contentType, number) => {
    expect(await send(githubForm(contentType, number))).toEqual({ status: 202, body: `Accepted: ${number} in gh-main`, contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', String(number))).toHaveLength(1);
  });

  it('a mixed-case form without a payload field: 400', async () => {
    const payload = 'action=labeled';
    const wire = githubWire('issues', githubLabeled(814), { signature: githubSignature(SECRETS.platformA, payload) });
    const answer = await send({ ...wire, payload, headers: { ...wire.headers, 'content-type': 'Application/X-WWW-Form-Urlencoded' } });
    expect(answer).toEqual({ status: 400, body: 'Bad request: a form-encoded delivery needs a payload field', contentType: TEXT });
  });

  it('an unsigned form without a payload field: 401, the secret is checked first', async () => {
    const wire = githubWire('issues', githubLabeled(815), { signature: null });
    const answer = await send({ ...wire, payload: 'action=labeled', headers: { ...wire.headers, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(answer).toEqual({ status: 401, body: 'Unauthorized: signature missing', contentType: TEXT });
  });
});

describe('payload text in answers is bounded', () => {
  it('a 1 MB label is echoed as its first characters and "…": the body stays 200 characters after "Filtered: "', async () => {
    const label = 'x'.repeat(1024 * 1024);
    const answer = await send(githubWire('issues', githubLabeled(821, { label })));
    expect(answer).toEqual({ status: 200, body: `Filtered: ${`no added label (${label}`.slice(0, 199)}…`, contentType: TEXT });
    expect(answer.body).toHaveLength('Filtered: '.length + 200);
  });

  it('a 1 MB Jira status is bounded the same way', async () => {
    const status = 's'.repeat(1024 * 1024);
    const answer = await send(jiraWire(jiraUpdated('OPEN-821', status), { signature: null }));
    expect(answer).toEqual({ status: 200, body: `Filtered: ${`status '${status}`.slice(0, 199)}…`, contentType: TEXT });
  });

  it('leaves the spec\'s exact bodies for normal inputs alone', async () => {
    expect(await send(githubWire('issues', githubLabeled(822)))).toEqual({ status: 202, body: 'Accepted: 822 in gh-main', contentType: TEXT });
    expect(await send(githubWire('issues', githubLabeled(822)))).toEqual({ status: 200, body: 'Already claimed: 822', contentType: TEXT });
    expect(await send(githubWire('issues', githubLabeled(823, { label: 'question' }))))
      .toEqual({ status: 200, body: 'Filtered: no added label (question) triggers a pipeline', contentType: TEXT });
  });
});
