import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootRunApp } from '../runs/support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';

let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  setup = await createRunTestSetup();
  app = await bootRunApp(setup.env);
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

async function runToEnd(ticket: string): Promise<string> {
  const outcome = await app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket }, 'instant');
  if (outcome.outcome !== 'Claimed') throw new Error(outcome.outcome);
  await eventually(async () => {
    const { rows } = await setup.db.query('SELECT state FROM runs WHERE id = $1', [outcome.runId]);
    return rows[0]?.state === 'succeeded' ? true : undefined;
  }, 20_000, 'the run to end');
  return outcome.runId;
}

async function published(): Promise<{ id: string; state: string }[]> {
  const entries = await setup.redis.xrange(`${setup.keyPrefix}feed:run-changes`, '-', '+');
  return entries.map(([, fields]) => ({ id: fields[fields.indexOf('id') + 1] as string, state: JSON.parse(fields[fields.indexOf('run') + 1] as string).state }));
}
const publishedIds = async () => (await published()).map((p) => p.id);

describe('run.changed is published only while some hub has a listener', () => {
  it('reads and publishes nothing while no hub anywhere has a subscriber or watcher', async () => {
    const runId = await runToEnd('nobody-1');
    await new Promise((r) => setTimeout(r, 500)); // past the coalescing window
    expect(await publishedIds()).not.toContain(runId);
  });

  it('publishes once another replica\'s hub says it has a listener (the store key), within about a second', async () => {
    // What a listening hub on another replica keeps in the store.
    await setup.redis.set(`${setup.keyPrefix}hub:listening`, '1', 'EX', 30);
    await new Promise((r) => setTimeout(r, 2_000));
    const runId = await runToEnd('heard-1');
    // Its last change (coalesced with any before it) is on the stream: the Run as it ended.
    await eventually(async () => ((await published()).some((p) => p.id === runId && p.state === 'succeeded') ? true : undefined),
      10_000, 'the run\'s final change on the stream');
  });

  it('stops again once the key is gone', async () => {
    await setup.redis.del(`${setup.keyPrefix}hub:listening`);
    await new Promise((r) => setTimeout(r, 2_000));
    const runId = await runToEnd('nobody-2');
    await new Promise((r) => setTimeout(r, 500));
    expect(await publishedIds()).not.toContain(runId);
  });
});
