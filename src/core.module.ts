import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ConfigModule } from './config/config.module.js';
import type { ServiceEnvironment } from './config/environment.js';
import { DatabaseModule } from './database/database.module.js';
import { FindingsModule } from './findings/findings.module.js';
import { ProbesModule } from './findings/probes.module.js';
import { HealthModule } from './health/health.module.js';
import { loggerOptions } from './logging/logger.options.js';
import { SandboxModule } from './sandbox/sandbox.module.js';
import { StoreModule } from './store/store.module.js';
import { StoredConfigModule } from './stored-config/stored-config.module.js';
import { TracingShutdown } from './tracing/tracing-shutdown.service.js';

/**
 * What both the server and `pipeline-service doctor` stand on: configuration (with its stored
 * secrets and settings), findings, store, database, sandbox backend, health and the startup probes.
 */
@Module({})
export class CoreModule {
  static register(env: ServiceEnvironment): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        LoggerModule.forRoot(loggerOptions(env.logLevel, env.logFormat)),
        ConfigModule.forEnvironment(env),
        FindingsModule,
        StoreModule,
        DatabaseModule,
        StoredConfigModule,
        SandboxModule,
        HealthModule,
        ProbesModule,
      ],
      providers: [TracingShutdown],
    };
  }
}
