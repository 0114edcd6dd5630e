import { Injectable } from '@nestjs/common';
import { type DashboardBundle, readDashboardBundle } from './dashboard-build.js';

/** The app bundle this server serves, read once at boot. */
@Injectable()
export class DashboardBundleRef implements DashboardBundle {
  readonly dir: string | null;
  readonly build: string;

  constructor() {
    const bundle = readDashboardBundle();
    this.dir = bundle.dir;
    this.build = bundle.build;
  }
}
