import { describe, expect, it } from 'vitest';
import { projectConfig, triggerConfig } from '../../test/fixtures/webhook-config.js';
import { Platform } from '../platforms/platform.js';
import { TrackerError } from '../platforms/tracker-client.js';
import type { PollTarget } from './poll-target.js';
import { trackerFinding } from './project-poller.js';

const project = projectConfig('shop', { tracker: Platform.GitHub, triggers: { [Platform.GitHub]: triggerConfig({ trigger_statuses: ['ready'] }) } });
const target = { project } as PollTarget;
const error = (status: number | null, retryable: boolean) => new TrackerError(`platform-a: GET /issues → HTTP ${status}`, Platform.GitHub, status, retryable);

describe('trackerFinding', () => {
  it('names the project, its trigger block and polling key, blocking', () => {
    expect(trackerFinding(target, error(503, true))).toMatchObject({
      subsystem: 'poller', severity: 'blocking', project: 'shop', trigger: 'platform_a_trigger', field: 'projects.shop.platform_a_trigger.polling',
    });
  });

  it('tells a tracker that is down or busy from one refusing the credentials or the poll', () => {
    expect(trackerFinding(target, error(null, true))?.reason).toMatch(/down, busy or unreachable/);
    // GitHub's rate-limited 403 is retryable: busy, not a refused credential.
    expect(trackerFinding(target, error(403, true))?.reason).toMatch(/down, busy or unreachable/);
    expect(trackerFinding(target, error(401, false))?.reason).toMatch(/refuses the credentials \(HTTP 401\)/);
    expect(trackerFinding(target, error(403, false))?.reason).toMatch(/refuses the credentials \(HTTP 403\)/);
    expect(trackerFinding(target, error(404, false))?.reason).toMatch(/refused the poll/);
  });

  it('leaves faults of our own database or store to their own reports', () => {
    expect(trackerFinding(target, new Error('database unavailable'))).toBeNull();
  });
});
