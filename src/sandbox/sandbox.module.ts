import { Global, Module } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { SandboxBackendKind } from '../config/service-config.js';
import { InProcessBackend } from './in-process.backend.js';
import { SANDBOX_BACKEND } from './sandbox.tokens.js';
import { UnavailableBackend } from './unavailable.backend.js';

@Global()
@Module({
  providers: [
    {
      provide: SANDBOX_BACKEND,
      inject: [ConfigService],
      useFactory: (config: ConfigService) => {
        const kind = config.config.sandbox.backend;
        return kind === SandboxBackendKind.InProcess ? new InProcessBackend() : new UnavailableBackend(kind);
      },
    },
  ],
  exports: [SANDBOX_BACKEND],
})
export class SandboxModule {}
