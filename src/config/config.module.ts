import { type DynamicModule, Global, Module } from '@nestjs/common';
import { FindingsModule } from '../findings/findings.module.js';
import { SERVICE_ENVIRONMENT } from './config.tokens.js';
import { ConfigFileWatcher } from './config-file-watcher.service.js';
import { ConfigService } from './config.service.js';
import type { ServiceEnvironment } from './environment.js';

@Global()
@Module({})
export class ConfigModule {
  static forEnvironment(env: ServiceEnvironment): DynamicModule {
    return {
      module: ConfigModule,
      imports: [FindingsModule],
      providers: [{ provide: SERVICE_ENVIRONMENT, useValue: env }, ConfigService, ConfigFileWatcher],
      exports: [SERVICE_ENVIRONMENT, ConfigService],
    };
  }
}
