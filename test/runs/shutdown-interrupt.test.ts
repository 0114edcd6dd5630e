import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootRunApp } from './support/run-test-app.js';
import { sandboxProcessesOf } from './support/sandbox-processes.js';
import { type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';

/**
 * Shutdown while a pipeline runs: after the grace period its commands are killed (no process
 * group outlives the server to act for a ticket that is then claimed again) and the run ends
 * Failed, saying why, instead of staying `running` for the stale-job detector.
 * (A case from a review that reproduced the defect.)
 */
let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  setup = await createRunTestSetup();
  app = await bootRunApp(setup.env);
});

afterAll(async () => {
  await setup?.cleanup();
});

describe('shutdown during a run', () => {
  it('kills the run\'s commands once the grace period is over and ends the run Failed', async () => {
    const claimed = await app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket: 'z1' }, 'slow');
    if (claimed.outcome !== 'Claimed') throw new Error(claimed.outcome);
    await eventually(async () => (sandboxProcessesOf(claimed.runId).length > 0 ? true : undefined), 10_000, 'the pipeline command to run');

    await app.close();

    expect(sandboxProcessesOf(claimed.runId)).toEqual([]);
    const { rows } = await setup.db.query<{ state: string; error: string | null }>('SELECT state, error FROM runs WHERE id = $1', [claimed.runId]);
    expect(rows[0]?.state).toBe('failed');
    expect(rows[0]?.error).toMatch(/^interrupted: the server shut down during the run/);
    const ticket = await setup.db.query<{ state: string }>("SELECT state FROM tickets WHERE ticket = 'z1'");
    expect(ticket.rows[0]?.state).toBe('failed');
  }, 40_000);
});
