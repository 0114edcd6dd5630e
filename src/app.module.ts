import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceEnvironment } from './config/environment.js';
import { AdminModule } from './admin/admin.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { ChatModule } from './chat/chat.module.js';
import { CoreModule } from './core.module.js';
import { DashboardAppModule } from './dashboard-app/dashboard-app.module.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { DiagnosticsModule } from './diagnostics/diagnostics.module.js';
import { DialogModule } from './dialog/dialog.module.js';
import type { DiagnosticsOptions } from './diagnostics/diagnostics.options.js';
import { HubModule } from './hub/hub.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { ProjectInitModule } from './pipelines/init/project-init.module.js';
import { PollingModule } from './polling/polling.module.js';
import type { PollingOptions } from './polling/polling.options.js';
import { RunEngineModule } from './runs/run-engine.module.js';
import { RunQueueModule } from './runs/run-queue.module.js';
import { LabelProjectionModule } from './tickets/label-projection/label-projection.module.js';
import { TicketsModule } from './tickets/tickets.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

/** Test-only tunables of the whole server (production passes none). */
export interface AppModuleOptions {
  /** The poller's timings (e.g. an interval under the configuration's 10 s minimum). */
  polling?: Partial<PollingOptions>;
  /** Where the built dashboard is (default dist/web). */
  dashboardDir?: string;
  /** The diagnostics' probe timeout (e.g. a second instead of 30 s, for a silent target). */
  diagnostics?: Partial<DiagnosticsOptions>;
}

/** The server: the core plus every feature module. */
@Module({})
export class AppModule {
  static register(env: ServiceEnvironment, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(env), AuthModule, RunQueueModule, RunEngineModule, TicketsModule, LabelProjectionModule, WebhooksModule, HubModule, ChatModule,
        DashboardModule, CatalogModule, DashboardAppModule.register(options.dashboardDir), AdminModule, ProjectInitModule, MetricsModule, DiagnosticsModule.register(options.diagnostics), DialogModule, options.polling ? PollingModule.withOptions(options.polling) : PollingModule,
      ],
    };
  }
}
