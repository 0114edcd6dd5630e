import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy.js';
import { bootRunApp } from './support/run-test-app.js';
import { sandboxProcessesOf } from './support/sandbox-processes.js';
import { type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';

/**
 * Self-fencing: an instance cut off from both the store and the database can no longer renew its
 * heartbeats, so after `heartbeat_ttl_seconds` another replica may revert its runs and their
 * tickets may be claimed again. It must stop their commands by then rather than run on beside a
 * second run. (A case from a review; nothing stopped such a pipeline before.)
 */
let setup: RunTestSetup;
let db: TcpProxy;
let store: TcpProxy;
let app: NestFastifyApplication;

beforeAll(async () => {
  setup = await createRunTestSetup(); // heartbeat every 1 s, TTL 3 s
  db = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
  store = await startTcpProxy({ host: '127.0.0.1', port: 6379 });
  const databaseUrl = new URL(setup.databaseUrl);
  databaseUrl.port = String(db.port);
  app = await bootRunApp({ ...setup.env, databaseUrl: databaseUrl.toString(), kvstoreUrl: `redis://127.0.0.1:${store.port}/0` });
});

afterAll(async () => {
  await db?.restore().catch(() => undefined);
  await store?.restore().catch(() => undefined);
  await app?.close();
  await db?.close();
  await store?.close();
  await setup?.cleanup();
});

describe('an instance cut off from the store and the database', () => {
  it('kills its runs\' commands once no heartbeat has reached either for the TTL', async () => {
    const claimed = await app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket: 'fence-1' }, 'slow');
    if (claimed.outcome !== 'Claimed') throw new Error(claimed.outcome);
    await eventually(async () => (sandboxProcessesOf(claimed.runId).length > 0 ? true : undefined), 10_000, 'the pipeline command to run');

    await Promise.all([db.cut(), store.cut()]);
    await eventually(async () => (sandboxProcessesOf(claimed.runId).length === 0 ? true : undefined), 10_000, 'the commands to be killed');

    // Once it can reach them again, the run does not stay `running`.
    await Promise.all([db.restore(), store.restore()]);
    const ended = await eventually(async () => {
      const { rows } = await setup.db.query<{ state: string; error: string | null }>('SELECT state, error FROM runs WHERE id = $1', [claimed.runId]);
      return rows[0]?.state === 'running' ? undefined : rows[0];
    }, 30_000, 'the run to end');
    // Ended by its own executor (if its end reached the database) or by the stale-job detector.
    expect(ended?.state).toBe('failed');
    expect(ended?.error).toMatch(/^(stopped: no heartbeat reached the store or the database|no heartbeat for \d+ s)/);
  }, 60_000);
});
