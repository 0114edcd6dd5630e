import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceEnvironment } from './config/environment.js';
import { CoreModule } from './core.module.js';

/** The server: the core plus every feature module. */
@Module({})
export class AppModule {
  static register(env: ServiceEnvironment): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.register(env)],
    };
  }
}
