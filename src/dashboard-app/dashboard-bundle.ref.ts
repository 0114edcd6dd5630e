import type { DashboardBundle } from './dashboard-build.js';

/** The app bundle this server serves, read once at boot (see readDashboardBundle). */
export class DashboardBundleRef implements DashboardBundle {
  constructor(
    readonly dir: string | null,
    readonly build: string,
  ) {}
}
