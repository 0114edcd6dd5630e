import { Global, Module } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { InstanceIdentity } from '../store/instance-identity.service.js';
import { createSandboxBackend } from './sandbox-backend.factory.js';
import { SANDBOX_BACKEND } from './sandbox.tokens.js';

@Global()
@Module({
  providers: [
    {
      provide: SANDBOX_BACKEND,
      inject: [ConfigService, InstanceIdentity],
      useFactory: (config: ConfigService, instance: InstanceIdentity) =>
        createSandboxBackend(config.config, config.env.variables, instance.id),
    },
  ],
  exports: [SANDBOX_BACKEND],
})
export class SandboxModule {}
