import { Global, Module } from '@nestjs/common';
import { StoreConnectionService } from './store-connection.service.js';
import { SubsystemsService } from './subsystems.service.js';

@Global()
@Module({ providers: [SubsystemsService, StoreConnectionService], exports: [SubsystemsService, StoreConnectionService] })
export class StoreModule {}
