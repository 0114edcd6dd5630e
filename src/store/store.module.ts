import { Global, Module } from '@nestjs/common';
import { InstanceIdentity } from './instance-identity.service.js';
import { LockService } from './lock.service.js';
import { StoreConnectionService } from './store-connection.service.js';
import { SubsystemsService } from './subsystems.service.js';

@Global()
@Module({ providers: [SubsystemsService, StoreConnectionService, LockService, InstanceIdentity],
  exports: [SubsystemsService, StoreConnectionService, LockService, InstanceIdentity] })
export class StoreModule {}
