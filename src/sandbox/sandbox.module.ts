import { Global, Module } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { createSandboxBackend } from './sandbox-backend.factory.js';
import { SANDBOX_BACKEND } from './sandbox.tokens.js';

@Global()
@Module({
  providers: [
    {
      provide: SANDBOX_BACKEND,
      inject: [ConfigService],
      useFactory: (config: ConfigService) => createSandboxBackend(config.config, config.env.variables.PATH),
    },
  ],
  exports: [SANDBOX_BACKEND],
})
export class SandboxModule {}
