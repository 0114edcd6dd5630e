import { type DynamicModule, Module } from '@nestjs/common';
import { ConnectionBook } from './connection-book.service.js';
import { ConnectionCatalog } from './connection-catalog.service.js';
import { DiagnosticsController } from './diagnostics.controller.js';
import { DEFAULT_DIAGNOSTICS_OPTIONS, DIAGNOSTICS_OPTIONS, type DiagnosticsOptions } from './diagnostics.options.js';
import { DiagnosticsService } from './diagnostics.service.js';

/** `GET /api/diagnostics/connections` and `POST /api/diagnostics/probe`. */
@Module({})
export class DiagnosticsModule {
  /** `overrides`: test tunables (a short probe timeout); production passes none. */
  static register(overrides: Partial<DiagnosticsOptions> = {}): DynamicModule {
    return {
      module: DiagnosticsModule,
      controllers: [DiagnosticsController],
      providers: [
        { provide: DIAGNOSTICS_OPTIONS, useValue: { ...DEFAULT_DIAGNOSTICS_OPTIONS, ...overrides } },
        ConnectionBook, ConnectionCatalog, DiagnosticsService,
      ],
    };
  }
}
