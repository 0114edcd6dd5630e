import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElectionService } from '../../src/leader/leader-election.service.js';
import { LeaseName } from '../../src/leader/lease-name.js';
import { createServer } from '../../src/server.js';
import { SubsystemsService } from '../../src/store/subsystems.service.js';
import { type RunTestSetup, createRunTestSetup } from './support/run-test-setup.js';

let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  setup = await createRunTestSetup();
  app = await createServer({ ...setup.env, kvstoreUrl: null });
  await app.init();
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

describe('without KVSTORE_URL', () => {
  it('starts nothing of the run engine: every queue subsystem is disabled and no lease is taken', async () => {
    await new Promise((done) => setTimeout(done, 1500)); // longer than a lease tick and a heartbeat
    const subsystems = app.get(SubsystemsService);
    for (const name of ['queue_consumer', 'housekeeping', 'poller', 'capacity_queue', 'redis'] as const) {
      expect(subsystems.get(name).state).toBe('disabled');
    }
    expect(app.get(LeaderElectionService).isLeader(LeaseName.Housekeeping)).toBe(false);
    expect(await setup.redis.keys(`${setup.keyPrefix}*`)).toEqual([]);
  });
});
