import { Global, Module } from '@nestjs/common';
import { StartupProbesService } from './startup-probes.service.js';

@Global()
@Module({ providers: [StartupProbesService], exports: [StartupProbesService] })
export class ProbesModule {}
