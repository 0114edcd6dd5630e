import { type DynamicModule, Module } from '@nestjs/common';
import { BuildMismatchService } from './build-mismatch.service.js';
import { DashboardBundleRef } from './dashboard-bundle.ref.js';
import { DASHBOARD_DIR, readDashboardBundle } from './dashboard-build.js';
import { DashboardSettingsController } from './dashboard-settings.controller.js';

/** The web app: its sign-in settings, its bundle and the build finding (serving it: serve-dashboard.ts). */
@Module({})
export class DashboardAppModule {
  /** `dir`: where the built app is (tests pass a bundle of their own). */
  static register(dir: string = DASHBOARD_DIR): DynamicModule {
    return {
      module: DashboardAppModule,
      controllers: [DashboardSettingsController],
      providers: [
        { provide: DashboardBundleRef, useFactory: () => { const b = readDashboardBundle(dir); return new DashboardBundleRef(b.dir, b.build); } },
        BuildMismatchService,
      ],
      exports: [DashboardBundleRef, BuildMismatchService],
    };
  }
}
