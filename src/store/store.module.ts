import { Global, Module } from '@nestjs/common';
import { LockService } from './lock.service.js';
import { StoreConnectionService } from './store-connection.service.js';
import { SubsystemsService } from './subsystems.service.js';

@Global()
@Module({ providers: [SubsystemsService, StoreConnectionService, LockService], exports: [SubsystemsService, StoreConnectionService, LockService] })
export class StoreModule {}
