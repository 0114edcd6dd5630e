import { Module } from '@nestjs/common';
import { BuildMismatchService } from './build-mismatch.service.js';
import { DashboardBundleRef } from './dashboard-bundle.ref.js';
import { DashboardSettingsController } from './dashboard-settings.controller.js';

/** The web app: its sign-in settings, its bundle and the build finding (serving it: serve-dashboard.ts). */
@Module({
  controllers: [DashboardSettingsController],
  providers: [DashboardBundleRef, BuildMismatchService],
  exports: [DashboardBundleRef, BuildMismatchService],
})
export class DashboardAppModule {}
