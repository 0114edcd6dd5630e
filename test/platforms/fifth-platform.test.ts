// The fifth platform registers before anything loads the server's modules (see the file).
import { unregisterFifthPlatform } from './fifth/register-fifth-platform.js';
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PLATFORMS } from '../../src/platforms/platform.js';
import { type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';
import { bootServer } from '../webhooks/support/webhook-harness.js';
import { FIFTH, fifthHeaders } from './fifth/fifth-platform.js';
import { FifthTrackerStandIn } from './fifth/fifth-tracker-stand-in.js';

/**
 * Issue 28's proof that a platform is one folder: a platform defined only in this test folder
 * (a descriptor, its tracker client and its tracker's server) is registered, configured in
 * service.yml like any other, and a signed delivery to its webhook route runs a pipeline to
 * success with its `service:*` labels written on its tracker. Nothing in src/ names it.
 */
const SECRET = 'fifth-webhook-secret';
const TOKEN = 'fifth-tracker-token';

let tracker: FifthTrackerStandIn;
let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  tracker = await new FifthTrackerStandIn(TOKEN).start();
  tracker.tickets.set('FIVE-7', { labels: ['bug'], status: 'Open', title: 'Make it five', version: 1, comments: [] });
  setup = await createRunTestSetup({
    projects: (remotes) => ({
      five: {
        tracker: FIFTH,
        repos: [remotes.entry('five-web')],
        platform_e_trigger: { site_url: tracker.url, project_key: 'FIVE', secret: SECRET, credentials: TOKEN, pipeline_from_label: { go: 'hello' } },
      },
    }),
  });
  app = await bootServer(setup.env);
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
  await tracker?.stop();
  unregisterFifthPlatform();
});

const deliver = (body: Record<string, unknown>, secret = SECRET) => {
  const raw = JSON.stringify(body);
  return app.inject({ method: 'POST', url: `/webhook/${FIFTH}`, headers: fifthHeaders(raw, secret, randomUUID()), payload: raw });
};

describe('a fifth platform registered from the test folder', () => {
  it('is served: its webhook route verifies its own signature, claims the ticket, runs the pipeline and writes its labels', async () => {
    expect(ALL_PLATFORMS).toContain(FIFTH);

    const forged = await deliver({ project: 'FIVE', ticket: 'FIVE-7', labels: ['go'] }, 'not-the-secret');
    expect(forged.statusCode).toBe(401);

    const accepted = await deliver({ project: 'FIVE', ticket: 'FIVE-7', labels: ['go'] });
    expect({ status: accepted.statusCode, body: accepted.body }).toEqual({ status: 202, body: 'Accepted: FIVE-7 in five' });

    const run = await eventually(async () => {
      const { rows } = await setup.db.query<{ state: string; pipeline: string; platform: string }>(
        "SELECT state, pipeline, platform FROM runs WHERE project = 'five' AND ticket = 'FIVE-7'");
      return rows[0]?.state === 'succeeded' ? rows[0] : undefined;
    }, 60_000, 'the run succeeded');
    expect(run).toEqual({ state: 'succeeded', pipeline: 'hello', platform: FIFTH });

    // The label projection reached the fifth tracker through its descriptor: the lifecycle label
    // ends at service:done beside the ticket's own labels, written under If-Match.
    await eventually(async () => (tracker.tickets.get('FIVE-7')!.labels.includes('service:done') ? true : undefined), 30_000, 'service:done on the ticket');
    expect(tracker.tickets.get('FIVE-7')!.labels).toEqual(['bug', 'service:done']);
    expect(tracker.requests.filter((r) => r.method === 'PUT' && r.path === '/api/tickets/FIVE-7/labels').length).toBeGreaterThanOrEqual(2);
  });
});
