import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessStoreService } from '../access/access-store.service.js';
import { ObservationRecorder } from '../access/observation-recorder.service.js';
import { AuthenticationService } from './authentication.service.js';
import { AuthorityService } from './authority.service.js';
import { IdentityController } from './identity.controller.js';
import { PermissionsGuard } from './permissions.guard.js';
import { SignInProbe } from './sign-in.probe.js';

@Global()
@Module({
  controllers: [IdentityController],
  providers: [
    AuthorityService, AuthenticationService, AccessStoreService, ObservationRecorder, SignInProbe,
    { provide: APP_GUARD, useClass: PermissionsGuard },
  ],
  exports: [AuthenticationService, AccessStoreService, AuthorityService, ObservationRecorder],
})
export class AuthModule {}
