import { Global, Module } from '@nestjs/common';
import { RunQueueService } from './run-queue.service.js';

@Global()
@Module({ providers: [RunQueueService], exports: [RunQueueService] })
export class RunQueueModule {}
