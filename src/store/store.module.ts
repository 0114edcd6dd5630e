import { Global, Module } from '@nestjs/common';
import { EmbeddedStoreService } from './embedded-store.service.js';
import { InstanceIdentity } from './instance-identity.service.js';
import { LockService } from './lock.service.js';
import { StoreConnectionService } from './store-connection.service.js';
import { SubsystemsService } from './subsystems.service.js';

@Global()
@Module({ providers: [SubsystemsService, EmbeddedStoreService, StoreConnectionService, LockService, InstanceIdentity],
  exports: [SubsystemsService, EmbeddedStoreService, StoreConnectionService, LockService, InstanceIdentity] })
export class StoreModule {}
