import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { PreflightService } from './preflight.service.js';
import { SubsystemsIndicator } from './subsystems.indicator.js';

@Global()
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [PreflightService, SubsystemsIndicator],
  exports: [PreflightService],
})
export class HealthModule {}
