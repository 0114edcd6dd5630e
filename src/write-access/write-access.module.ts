import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { VerdictMemory } from './verdict-memory.service.js';
import { DEFAULT_WRITE_ACCESS_OPTIONS, WRITE_ACCESS_OPTIONS, type WriteAccessOptions } from './write-access.options.js';
import { WriteAccessService } from './write-access.service.js';

const SERVICES: Provider[] = [VerdictMemory, WriteAccessService];

/**
 * The write-access check of pull-request commands (issue 15). Needs the global ConfigModule and
 * StoreModule (the core).
 */
@Module({
  providers: [{ provide: WRITE_ACCESS_OPTIONS, useValue: DEFAULT_WRITE_ACCESS_OPTIONS }, ...SERVICES],
  exports: [WriteAccessService],
})
export class WriteAccessModule {
  /** The module with some tunables changed (tests shorten the memory and the HTTP timings). */
  static withOptions(overrides: Partial<WriteAccessOptions>): DynamicModule {
    return {
      module: WriteAccessModule,
      providers: [{ provide: WRITE_ACCESS_OPTIONS, useValue: { ...DEFAULT_WRITE_ACCESS_OPTIONS, ...overrides } }, ...SERVICES],
      exports: [WriteAccessService],
    };
  }
}
