import { Controller, Get, HttpCode, HttpStatus, Res } from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '../common/api-docs.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import { HealthResponseDto } from './dto/health-response.dto.js';
import { ReadinessResponseDto } from './dto/readiness-response.dto.js';
import type { HealthResponse, ReadinessResponse } from './health-responses.js';
import { PreflightService } from './preflight.service.js';
import { SubsystemsIndicator } from './subsystems.indicator.js';


@ApiTags('health')
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
  @ApiOperation({ summary: 'Liveness', description: 'Always 200 while the listener is alive; `degraded` names what is not up.' })
  @ApiOkResponse({ type: HealthResponseDto, description: 'alive' })
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
  @ApiOperation({ summary: 'Readiness', description: '200 `ready` when every subsystem is up, else 503 `not_ready`.' })
  @ApiOkResponse({ type: ReadinessResponseDto, description: 'every subsystem is up' })
  @ApiServiceUnavailableResponse({ type: ReadinessResponseDto, description: 'a subsystem is not up' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessResponse> {
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
