import { Controller, Get, HttpCode, HttpStatus, Res } from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import type { SubsystemStatus } from '../store/subsystem.js';
import type { PreflightReport } from './preflight.js';
import { PreflightService } from './preflight.service.js';
import { SubsystemsIndicator } from './subsystems.indicator.js';

export interface HealthResponse {
  status: 'ok' | 'degraded';
  timestamp: string;
  preflight: PreflightReport;
  subsystems: SubsystemStatus[];
}

@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly subsystems: SubsystemsService,
    private readonly preflight: PreflightService,
    private readonly terminus: HealthCheckService,
    private readonly indicator: SubsystemsIndicator,
  ) {}

  /** Liveness: always 200 while the listener is alive; never waits on a dependency. */
  @Get()
  @HttpCode(HttpStatus.OK)
  health(): HealthResponse {
    return {
      status: this.subsystems.overall(),
      timestamp: new Date().toISOString(),
      preflight: this.preflight.report(),
      subsystems: this.subsystems.list(),
    };
  }

  /** Readiness by the earlier rule: 200 `ready` when every subsystem is up, else 503 `not_ready`. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ status: 'ready' | 'not_ready'; subsystems: SubsystemStatus[] }> {
    const subsystems = this.subsystems.list();
    try {
      await this.terminus.check(this.indicator.all());
      return { status: 'ready', subsystems };
    } catch {
      reply.status(HttpStatus.SERVICE_UNAVAILABLE);
      return { status: 'not_ready', subsystems };
    }
  }
}
