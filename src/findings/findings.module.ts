import { Global, Module } from '@nestjs/common';
import { FindingsController } from './findings.controller.js';
import { FindingsService } from './findings.service.js';

@Global()
@Module({ controllers: [FindingsController], providers: [FindingsService], exports: [FindingsService] })
export class FindingsModule {}
