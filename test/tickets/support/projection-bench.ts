import type { Platform } from '../../../src/platforms/platform.js';
import { ProjectionApp } from './projection-app.js';
import { type TrackerCase, trackerCases } from './tracker-cases.js';
import { type TicketTestSetup, createTicketTestSetup } from './ticket-test-setup.js';
import { type Trackers, startTrackers, stopTrackers, trackerProjects } from './trackers.js';

/** The four tracker stand-ins, a database and store prefix, and the projecting app on them. */
export interface ProjectionBench {
  trackers: Trackers;
  setup: TicketTestSetup;
  app: ProjectionApp;
  cases: TrackerCase[];
  caseOf(platform: Platform): TrackerCase;
  stop(): Promise<void>;
}

export async function startProjectionBench(): Promise<ProjectionBench> {
  const trackers = await startTrackers();
  const setup = await createTicketTestSetup(trackerProjects(trackers));
  const app = await ProjectionApp.boot(setup.env);
  const cases = trackerCases(trackers);
  return {
    trackers, setup, app, cases,
    caseOf: (platform) => cases.find((c) => c.platform === platform) as TrackerCase,
    async stop() {
      await app.close();
      await stopTrackers(trackers);
      await setup.cleanup();
    },
  };
}
